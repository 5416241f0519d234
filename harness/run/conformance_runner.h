// `opcert run` on compute ops (DESIGN.md section 6): plans the jobs, runs each backend's jobs in
// its own worker process (one backend after another, the peer first; with --devices one worker
// per device, side by side: run/worker_lanes.h), emits every result into the result stream as it
// comes, then fills in the alignment figures and finishes the run. Across the ranks of an MPI job
// (RunSettings::world) every rank runs its devices and rank 0 merges (session/rank_loop/rank_merge.h).
#pragma once

#include <vector>

#include "check/suite.h"
#include "run/run_settings.h"
#include "session/planning/targets.h"

namespace opcert {

/// Runs `suite` on `targets`; the outputs of add_conformance_outputs go into settings.out_dir.
/// Returns the exit code (rank 0's, on every rank): 0, 1 (a selected backend's case FAILED, ERROR,
/// CRASHED or TIMEOUT, or a rank was lost), or kExitInterrupted. Throws InputError (exit 2) for a
/// bad filter, a filter or --impl that selects nothing, a --devices index a backend lacks, or an
/// unusable --out, and NoBackendError (exit 3) when no selected backend implements an op of the
/// selected cases, all before any worker starts.
int run_conformance(const std::vector<RunTarget>& targets, const Suite& suite, const RunSettings& settings);

}  // namespace opcert
