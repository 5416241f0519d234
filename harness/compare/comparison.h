// What `opcert compare` finds between two runs (or two backends of one run): the model its table,
// JSON, Markdown and JUnit outputs are written from, and its gates judge.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/status.h"

namespace opcert {

/// A result's status in the base and in the new run; an empty side: the result is not there.
struct StatusChange {
  std::string case_id;
  std::string impl_key;
  std::string op;
  std::string dtype;
  bool peer = false;  ///< the peer's result: shown, never gated
  std::optional<Status> base;
  std::optional<Status> now;
  std::string message;  ///< the new run's reason, when it has one
  /// Passing before and not now (not there, skipped or worse), or new and not passing.
  bool regression = false;
};

/// A result's alignment ratio (its RMSE over the peer's) and RMSE, in both runs.
struct AlignmentDrift {
  std::string case_id;
  std::string impl_key;
  std::string op;
  std::optional<double> base_ratio, new_ratio;
  std::optional<double> base_rmse, new_rmse;
  double growth = 1.0;  ///< the larger of new/base ratio and new/base RMSE (1 when neither is known)
  bool beyond = false;  ///< growth over --max-alignment-growth
};

enum class TimingVerdict { kUnchanged, kSlower, kFaster, kUntestable, kMissing };

/// One run's side of a benchmark row.
struct TimingSide {
  std::optional<double> seconds;          ///< the typical time; empty when not timed
  std::vector<double> repetitions;        ///< the timed repetitions' seconds, in run order
  std::optional<double> noise;
  std::optional<double> peer_ratio;       ///< speedup over the peer in that run
  std::optional<double> busbw;            ///< collectives: bus bandwidth, GB/s
  /// The GPU's state while sampling: condition flags ("throttled", "clock-capped") and the SM
  /// clock at the last reading; a difference between the runs may explain a change.
  std::vector<std::string> conditions;
  std::optional<uint32_t> sm_clock_mhz;
};

/// One benchmark row in both runs: the typical times, the change, and the rank test over the
/// repetitions behind it.
struct TimingChange {
  std::string case_id;
  std::optional<uint64_t> size_bytes;  ///< a collective sweep's row: its message size (rows of one case differ by it)
  std::string impl_key;
  std::string op;
  bool peer = false;
  TimingSide base, now;
  std::optional<double> change;   ///< now / base - 1: positive is slower
  std::optional<double> p_value;  ///< Mann-Whitney U, two-sided
  TimingVerdict verdict = TimingVerdict::kUnchanged;
  std::string note;  ///< why untestable, what is missing, how the GPU's conditions differ
};

/// A fact of the environment that differs between the runs: it may explain a change.
struct EnvironmentDifference {
  std::string what;  ///< "gpus[0].driver_version", "libraries.torch", "sampling.max_noise", ...
  std::string base;
  std::string now;
};

/// One gate that failed, naming the row.
struct GateFailure {
  std::string gate;  ///< "status", "perf", "alignment", "peer_ratio"
  std::string case_id;
  std::optional<uint64_t> size_bytes;  ///< a collective sweep's row, by its message size
  std::string impl_key;
  std::string what;  ///< one line: the numbers that failed it
};

/// Two backends of one run side by side on a case.
struct BackendPair {
  std::string case_id;
  std::string op;
  std::string dtype;
  std::string impl_a, impl_b;
  std::optional<Status> status_a, status_b;
  std::optional<double> alignment_a, alignment_b;
  std::optional<double> seconds_a, seconds_b;
  std::optional<double> time_ratio;  ///< seconds_b / seconds_a: above 1, A is faster
};

/// The pairs of an op and dtype together: the geometric mean of their time ratios and the worst
/// alignment of each side.
struct BackendPairSummary {
  std::string op;
  std::string dtype;
  int cases = 0;
  std::optional<double> geomean_time_ratio;
  std::optional<double> worst_alignment_a, worst_alignment_b;
  int passed_a = 0, passed_b = 0;
};

struct Comparison {
  std::string mode;  ///< "runs" (BASE against NEW) or "backends" (A against B in one run)
  std::string base_label, new_label;  ///< the paths given, or the backends
  std::vector<StatusChange> statuses;    ///< only the results whose status changed, or appeared/disappeared
  int unchanged_statuses = 0;
  std::vector<AlignmentDrift> drifts;    ///< results whose alignment or RMSE grew or shrank
  std::vector<TimingChange> timings;     ///< every matched benchmark row
  std::vector<EnvironmentDifference> environment;
  std::vector<BackendPair> pairs;
  std::vector<BackendPairSummary> pair_summaries;
  std::vector<GateFailure> failures;
  std::vector<std::string> notes;        ///< what the reader should know (too few repetitions, seeds differ, ...)
  std::vector<std::string> gates;        ///< the gates that were on
};

std::string verdict_name(TimingVerdict verdict);

}  // namespace opcert
