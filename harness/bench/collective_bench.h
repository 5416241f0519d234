// `opcert bench` on a suite of collectives (DESIGN.md section 8), across the ranks of an MPI job
// (or one rank that says so): for each case of the suite and each size of the sweep, each
// selected backend (and the peer, where it has the collective, e.g. torch.distributed) runs the
// collective once and checks it, then `warmup` untimed and `iters` timed collectives, through the
// shared collective loop (session/rank_loop/collective_loop.h); rank 0 emits a row per size (time, algbw,
// busbw, the peer's busbw and the ratio) into the result stream. Each step has the deadline of
// `--timeout`; a dead or hung rank ends the job with TIMEOUT/ERROR rows and the outputs written.
#pragma once

#include <chrono>
#include <vector>

#include "bench/bench_settings.h"
#include "bench/collective_sweep.h"
#include "check/suite.h"
#include "ranks/world.h"
#include "session/planning/targets.h"

namespace opcert {

struct CollectiveBenchSettings {
  SweepSettings sweep;
  int iters = 20;                            // timed collectives per size
  int warmup = 5;                            // untimed collectives before them
  std::chrono::milliseconds timeout{60000};  // one size of one case: check, warm-up and timing
};

/// Runs the collective bench on every rank (same arguments on each). Returns the exit code
/// (rank 0's, on every rank): 0, or 1 when a row of a selected backend is not PASSED or was not
/// timed. Throws InputError / NoBackendError, on every rank alike, before anything runs.
int run_collective_benchmarks(const std::vector<RunTarget>& targets, const Suite& suite, const BenchSettings& settings,
                              const CollectiveBenchSettings& collective, World& world);

}  // namespace opcert
