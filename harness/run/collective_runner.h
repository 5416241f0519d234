// `opcert run` for a suite of collectives (DESIGN.md section 8): every rank runs every case
// in-process (the rank is its own worker), on a communicator its backend builds from the unique
// id rank 0 broadcasts; each rank checks its own output and sends its result to rank 0, which
// streams results.jsonl and writes the one report holding every rank's outcome. Nothing waits
// past --timeout plus a grace: a rank that dies or hangs ends the job with the cases it broke
// recorded TIMEOUT or ERROR and the reports written.
#pragma once

#include <chrono>
#include <vector>

#include "check/suite.h"
#include "ranks/world.h"
#include "run/conformance_runner.h"
#include "run/rank_session.h"

namespace opcert {

/// The device of this rank on `backend`: the local rank picks it, modulo the backend's devices.
/// Throws NoBackendError when the backend has none.
opcert_device rank_device(const BackendHandle& backend, const World& world);

/// Runs the collective cases of `suite` on `targets` across the ranks of `world`. Every rank
/// calls it with the same arguments. Returns the exit code (rank 0's, on every rank). Throws
/// InputError / NoBackendError, on every rank alike, for bad selections, before anything runs.
int run_collectives(const std::vector<RunTarget>& targets, const Suite& suite, const RunSettings& settings, World& world);

}  // namespace opcert
