// `opcert run` on collectives (DESIGN.md section 8): each case of the suite on each selected
// backend's collective, across the ranks of `world` (one process, or an MPI job), through the
// shared collective loop; each rank checks its own output exactly, rank 0 records every rank's
// result (run/collective_ledger.h).
#pragma once

#include <vector>

#include "check/suite.h"
#include "ranks/world.h"
#include "run/run_settings.h"
#include "session/planning/targets.h"

namespace opcert {

/// Runs the collective cases of `suite` on `targets` across the ranks of `world`. Every rank
/// calls it with the same arguments. Returns the exit code (rank 0's, on every rank). Throws
/// InputError / NoBackendError, on every rank alike, for bad selections, before anything runs.
int run_collectives(const std::vector<RunTarget>& targets, const Suite& suite, const RunSettings& settings, World& world);

}  // namespace opcert
