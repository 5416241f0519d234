// The gate flags of `opcert compare`, shared with `--baseline` on run and bench: their parsing,
// their merge over a platform config's `gates`, the files a comparison writes, and the comparison
// a run makes with its baseline once its own outputs are written.
#pragma once

#include <CLI/CLI.hpp>

#include <filesystem>
#include <string>

#include "compare/compare_options.h"
#include "compare/comparison.h"
#include "loader/platform/platform_config.h"
#include "reports/run_report.h"

namespace opcert {

/// As given on the command line; "" is unset.
struct CompareGateFlags {
  std::string fail_on;               ///< --fail-on status,perf,alignment,peer_ratio
  std::string max_slowdown;          ///< --max-slowdown 5% (or 5)
  std::string min_peer_ratio;        ///< --min-peer-ratio 0.95
  std::string max_alignment_growth;  ///< --max-alignment-growth 2
  std::string alpha;                 ///< --alpha 0.05
  bool across_devices = false;       ///< --across-devices
};

void add_compare_gate_flags(CLI::App& verb, CompareGateFlags& flags);

/// The defaults, under the gates of the platform (`platform_flag`, else the new run's), under the
/// flags. InputError for a bad value, or a --platform the catalogue does not have.
CompareOptions resolve_compare_options(const CompareGateFlags& flags, const PlatformCatalog& platforms,
                                       const std::string& platform_flag, const RunReport& now);

/// A line for the report when the new run's platform is not in the catalogue (its gates unknown).
std::string platform_gate_note(const PlatformCatalog& platforms, const std::string& platform_flag, const RunReport& now);

/// Writes --json, --markdown and --junit where a path is given; InputError naming an unwritable one.
void write_comparison_files(const Comparison& comparison, int exit_code, const std::string& json_path,
                            const std::string& markdown_path, const std::string& junit_path);

/// `--baseline RUN` and the gate flags on run and bench.
struct BaselineFlags {
  std::string baseline;
  CompareGateFlags gates;
};

void add_baseline_flags(CLI::App& verb, BaselineFlags& flags);

/// Before the run: a gate flag without --baseline, or a baseline that is not a readable opcert
/// report, is an InputError (exit 2), so a long run does not end in a usage error.
void check_baseline_flags(const CLI::App& verb, const BaselineFlags& flags);

/// `--baseline BASELINE` of run and bench: compares the report just written to `out_dir` with it,
/// prints the comparison, writes comparison.json beside the report, and returns the exit code the
/// gates give (0 or 1). InputError (exit 2) when the baseline is unusable.
int compare_with_baseline(const std::string& baseline, const std::filesystem::path& out_dir,
                          const CompareGateFlags& flags, const PlatformCatalog& platforms,
                          const std::string& platform_flag);

}  // namespace opcert
