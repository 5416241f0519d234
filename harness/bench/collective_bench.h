// `opcert bench` on a suite of collectives (DESIGN.md section 8), across the ranks of an MPI job
// (or one rank that says so): for each case of the suite and each size of the sweep, each
// selected backend (and a peer backend with the same collective, e.g. torch.distributed) runs the
// collective once and checks it, then `warmup` untimed and `iters` timed collectives; rank 0 prints
// a row per size (time, algbw, busbw, the peer's busbw and the ratio) and writes bench.json,
// report.json, measurements.jsonl and results.jsonl. Each step has the deadline of `--timeout`;
// a dead or hung rank ends the job with TIMEOUT/ERROR rows and the outputs written.
#pragma once

#include <chrono>
#include <vector>

#include "bench/bench_runner.h"
#include "bench/collective_sweep.h"
#include "check/suite.h"
#include "ranks/world.h"
#include "run/conformance_runner.h"

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
