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

namespace opcert {

/// How long past the timeout a rank waits for a stuck peer or backend call before it gives up
/// on it: half the timeout, between 2 and 30 seconds.
std::chrono::milliseconds collective_grace(std::chrono::milliseconds timeout);

/// Runs the collective cases of `suite` on `targets` across the ranks of `world`. Every rank
/// calls it with the same arguments. Returns the exit code (rank 0's, on every rank). Throws
/// InputError / NoBackendError, on every rank alike, for bad selections, before anything runs.
int run_collectives(const std::vector<RunTarget>& targets, const Suite& suite, const RunSettings& settings, World& world);

}  // namespace opcert
