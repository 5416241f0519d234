// Platform configs (DESIGN.md section 3, docs/CONFIGS.md): which backend and implementations serve
// a device in production, tolerance overrides, peak figures for roofline percentages, and
// environment variables. configs/*.json are built into the binary; files named by
// OPCERT_PLATFORM_JSON or --platform-config are merged over them, replacing platforms by name.
// Every problem in a config (unreadable file, bad JSON, unknown field, wrong type or range) is an
// InputError with a one-line message naming the file and the field; nothing is silently ignored.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace opcert {

/// Replaces the op's derived bound field by field; an unset field keeps the derived value.
struct ToleranceOverride {
  std::optional<double> atol;
  std::optional<double> rtol;
  bool operator==(const ToleranceOverride&) const = default;
};

/// The device's spec peaks; what is unknown stays empty and its percent-of-peak is not shown.
struct PeakFigures {
  std::map<std::string, double> tflops;  ///< dtype name ("bf16", ...) or "tf32" -> dense TFLOP/s (TOP/s for int8)
  std::optional<double> memory_gbps;     ///< device memory bandwidth, GB/s (10^9 bytes/s)
  std::optional<double> link_gbps;       ///< device-to-device link, GB/s per direction
  std::optional<double> cache_mib;       ///< last-level cache (L2 on a GPU), MiB: what --cold-l2 flushes
  bool operator==(const PeakFigures&) const = default;
};

/// The CI gates a vendor keeps with its platform (`opcert compare`, `--baseline`): what is unset
/// here is the CLI's default; the CLI's flags override what is set.
struct GateThresholds {
  std::vector<std::string> fail_on;            ///< "status", "perf", "alignment", "peer_ratio"; empty: unset
  std::optional<double> max_slowdown;          ///< a fraction (the file says max_slowdown_pct)
  std::optional<double> min_peer_ratio;
  std::optional<double> max_alignment_growth;
  bool operator==(const GateThresholds&) const = default;
};

struct PlatformConfig {
  std::string name;         ///< [a-z0-9-]+, unique in a catalog
  std::string description;  ///< free text, may be empty
  std::string device;       ///< device string as the vendor reports it, may be empty
  std::string backend;      ///< the backend serving this platform, [a-z0-9_]+
  std::string peer;         ///< the backend results are compared with on this platform ("" = the CLI's default)
  /// Catalogue op -> production implementation key "<backend>.<op>.<variant>".
  std::map<std::string, std::string> implementations;
  /// Catalogue op -> dtype name or "*" (every dtype) -> override.
  std::map<std::string, std::map<std::string, ToleranceOverride>> tolerances;
  PeakFigures peaks;
  std::map<std::string, std::string> environment;  ///< variables for the runner to set
  GateThresholds gates;                            ///< CI gates (docs/CONFIGS.md)
  std::string source;                              ///< "built-in" or the file it came from

  /// The override for (op, dtype): each field from the dtype's entry, else from "*", else unset.
  ToleranceOverride tolerance_for(std::string_view op, std::string_view dtype) const;
  bool operator==(const PlatformConfig&) const = default;
};

/// Parses one platform object. `source` names the text in messages and becomes config.source.
/// Throws InputError.
PlatformConfig parse_platform_config(std::string_view json_text, const std::string& source);

/// Parses a file's text: one platform object or an array of them (names must differ).
/// Throws InputError; messages locate array elements as '[i].field'.
std::vector<PlatformConfig> parse_platform_configs(std::string_view json_text, const std::string& source);

/// A set of platforms, unique by name, kept sorted by name.
class PlatformCatalog {
 public:
  /// The configs/*.json files embedded at build time, parsed once; copy it to merge files over it.
  static const PlatformCatalog& builtin();

  /// Adds the file's platforms; one with an existing name replaces that platform whole.
  /// Throws InputError for a missing or unreadable file and for any error in it.
  void merge_file(const std::string& path);

  /// merge_file for a config's text already read; `source` names it in messages.
  void merge_text(std::string_view text, const std::string& source);

  /// Every file merged over the built-ins, in order, as read: what a worker process is handed
  /// instead of the paths, which a pipe or a process substitution cannot give twice.
  struct MergedFile {
    std::string source;
    std::string text;
  };
  const std::vector<MergedFile>& merged_files() const { return merged_; }

  /// Adds `config`, replacing a platform of the same name.
  void merge(PlatformConfig config);

  const PlatformConfig* find(std::string_view name) const;  ///< nullptr if unknown
  const std::vector<PlatformConfig>& all() const { return platforms_; }

  /// Throws InputError "unknown platform 'x' (known: a, b); see `opcert list`".
  const PlatformConfig& require(std::string_view name) const;

 private:
  std::vector<PlatformConfig> platforms_;
  std::vector<MergedFile> merged_;
};

/// The built-ins, then each file of OPCERT_PLATFORM_JSON (a ':'-separated list; unset or empty
/// means none), then `extra_files` (--platform-config), each merged over what came before.
PlatformCatalog load_platforms(const std::vector<std::string>& extra_files);

}  // namespace opcert
