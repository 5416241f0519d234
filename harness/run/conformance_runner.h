// `opcert run`'s engine (DESIGN.md section 6): plans the jobs, runs each backend's jobs in its
// own worker process (one backend after another, the torch peer first), streams every result to
// results.jsonl, then fills in the alignment figures and writes the reports.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "check/suite.h"
#include "loader/backend_handle.h"
#include "model/exit_codes.h"
#include "reports/environment.h"
#include "reports/run_report.h"
#include "run/job_list.h"
#include "run/progress.h"

namespace opcert {

/// A backend taking part: a selected one, or the torch alignment peer (results kept, not gated).
struct RunTarget {
  BackendHandle* backend = nullptr;
  bool peer = false;
};

struct RunSettings {
  std::string filter;                        // --filter regex over case ids; "" = every case
  std::string impl_selection;                // --impl globs over implementation keys; "" = all
  std::filesystem::path out_dir;             // created if missing
  uint64_t seed = 1;
  std::chrono::milliseconds timeout{60000};  // per case
  ProgressMode progress = ProgressMode::kAuto;
  std::string platform;                      // --platform, "" for none
  std::string command_line;                  // as typed, for the report
  std::string executable;                    // the opcert binary that workers exec
  /// The options every worker gets so that it loads the same backends and platform configs
  /// (--plugin-dir, --plugin, --allow-insecure-plugins, --platform, --platform-config).
  std::vector<std::string> worker_options;
  /// What the repro line adds after the plugin options (--platform NAME, ...).
  std::vector<std::string> repro_options;
  std::string repro_suite;                   // the suite as a repro line names it
  EnvironmentInputs environment;             // build facts for the report's environment
};

/// What the job planner needs of each target: its name, implementations and whether it is the peer.
std::vector<BackendPlan> backend_plans(const std::vector<RunTarget>& targets);

/// The provenance of a target as reports record it (name, version, library and its sha256).
BackendRecord backend_record(const RunTarget& target);

/// A report with what is known when a run starts: command line, suite, seed, platform, start
/// time, backends. The results and the closing fields come later.
RunReport report_header(const std::vector<RunTarget>& targets, const Suite& suite, const RunSettings& settings);

/// Every report writer into settings.out_dir; false (each failure printed) when one failed.
bool write_reports(const RunReport& report, const std::filesystem::path& out_dir);

/// Runs `suite` on `targets` and writes the reports into settings.out_dir; prints progress on
/// stderr and the summary table on stdout. Returns the exit code: 0, 1 (a selected backend's
/// case FAILED, ERROR, CRASHED or TIMEOUT), or kExitInterrupted. Throws InputError (exit 2) for a
/// bad filter, a filter or --impl that selects nothing, or an unusable --out, and NoBackendError
/// (exit 3) when no selected backend implements an op of the selected cases, all before any
/// worker starts.
int run_conformance(const std::vector<RunTarget>& targets, const Suite& suite, const RunSettings& settings);

}  // namespace opcert
