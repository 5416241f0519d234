// `opcert bench`'s engine (DESIGN.md section 7): every (implementation, case) of the selected
// backends, and the torch peer on the same cases, registered as Google Benchmark benchmarks at
// run time and timed in one process, one after the other. Each case's inputs are generated once
// and its output checked once against the reference, outside the timed region; then the op is
// launched again and again on the same device buffers.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "check/suite.h"
#include "loader/platform/platform_config.h"
#include "reports/environment.h"
#include "run/conformance_runner.h"

namespace opcert {

struct BenchSettings {
  std::string filter;                  // --filter regex over case ids
  std::string impl_selection;          // --impl globs
  std::filesystem::path out_dir;       // bench.json, report.json, results.jsonl, measurements.jsonl
  uint64_t seed = 1;
  bool cold_l2 = false;                // --cold-l2: flush the last-level cache before each sample
  bool copy_baseline = false;          // --copy-baseline: time a copy of each memory-bound case's bytes
  std::string platform;                // --platform: whose peaks apply ("" = match by device name)
  const PlatformCatalog* platforms = nullptr;
  /// Google Benchmark's own flags, passed through (--benchmark_min_time=..., ...).
  std::vector<std::string> benchmark_flags;
  std::string command_line;
  std::string suite_asked;             // --suite as given
  EnvironmentInputs environment;
};

/// Flags opcert owns and Google Benchmark must not be given by the user (the CLI rejects them).
bool is_reserved_benchmark_flag(const std::string& flag);

/// Benchmarks `suite` on `targets` (the torch peer first) and writes the outputs into
/// settings.out_dir; prints the table on stdout. Returns 0, or 1 when a selected backend's case
/// failed its check (FAILED, ERROR) or its timing failed. Throws InputError (exit 2) for a bad
/// filter, an --impl or filter that selects nothing, a bad Google Benchmark flag or an unusable
/// --out, and NoBackendError (exit 3), all before anything is timed.
int run_benchmarks(const std::vector<RunTarget>& targets, const Suite& suite, const BenchSettings& settings);

}  // namespace opcert
