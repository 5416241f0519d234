// What `opcert compare` (and `--baseline`) judges a change by: the thresholds of its gates and
// which gates fail the command. The CLI's flags over the platform config's `gates` over these
// defaults (docs/CLI.md, docs/CONFIGS.md).
#pragma once

#include <optional>
#include <set>
#include <string>

namespace opcert {

struct CompareOptions {
  /// Gates that fail the command (exit 1): "status", "perf", "alignment", "peer_ratio".
  std::set<std::string> fail_on = {"status", "perf", "alignment"};
  double max_slowdown = 0.05;           ///< --max-slowdown: a slower row must be more than this much slower
  double alpha = 0.05;                  ///< and its rank test's p under this
  double max_alignment_growth = 2.0;    ///< --max-alignment-growth: alignment ratio or RMSE growth allowed
  std::optional<double> min_peer_ratio; ///< --min-peer-ratio: every row of the new run at least this fast against the peer
  bool across_devices = false;          ///< --across-devices: match results of runs on different devices
  /// The gates the command line asked for by name (--fail-on) or by a threshold of their own
  /// (--max-slowdown and --alpha: perf; --min-peer-ratio: peer_ratio). Such a gate with nothing to
  /// judge (no timings on a side) is an unusable input; one merely on by default is left off, said.
  std::set<std::string> asked;
};

/// The gate names, for messages.
inline constexpr const char* kGateNames = "status, perf, alignment, peer_ratio";

/// Reads "status,perf" into gate names; throws InputError for an unknown one.
std::set<std::string> parse_gates(const std::string& list);

}  // namespace opcert
