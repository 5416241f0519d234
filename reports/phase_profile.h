// Where a run's time went: each backend's jobs summed phase by phase (model/phase_times.h), each
// phase's share of the backend's job time and its slowest cases. `opcert run --profile` prints it
// at the end; summary.md has it as its Profile section (docs/PERFORMANCE.md, "Harness").
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "reports/run_report.h"

namespace opcert {

struct SlowCase {
  std::string label;  // the case id, with the implementation key where the backend ran several
  double seconds = 0.0;
};

struct PhaseLine {
  std::string phase;  // generate, copy, launch, reference, check, other, startup, ipc
  double seconds = 0.0;
  std::vector<SlowCase> slowest;  // slowest first
};

struct BackendProfile {
  std::string name;           // as the summary table names it: "cpu", "torch (peer)"
  std::size_t timed = 0;      // results with phases
  std::size_t untimed = 0;    // results without: made by the runner (crashed, timed out), or from old reports
  double job_seconds = 0.0;   // over the timed results: worker + startup + ipc, what the shares are of
  /// The five phases, then `other` (the worker's time outside them: query_op, memory admission,
  /// the protocol's encoding; for collectives the ranks' agreements), then the runner's startup and ipc.
  std::vector<PhaseLine> lines;
};

/// One entry per backend with results, in the summary table's order; `slowest` cases per line.
std::vector<BackendProfile> phase_profile(const RunReport& report, std::size_t slowest = 3);

/// The profile as aligned plain text ending in a newline; "" when no result has phases.
std::string profile_text(const RunReport& report);

/// The profile as summary.md's "## Profile" section; "" when no result has phases.
std::string profile_markdown(const RunReport& report);

}  // namespace opcert
