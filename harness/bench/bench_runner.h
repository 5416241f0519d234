// `opcert bench` on compute ops (DESIGN.md section 7): every (implementation, case) of the
// selected backends, and the peer on the same cases, timed one after the other, case by case, each
// in its backend's worker process (bench/bench_workers.h, bench/bench_worker.h), where it is
// registered as a Google Benchmark benchmark. With --devices, on lanes of workers side by side, one
// per device, a case (its peer included) on one lane (bench/bench_lanes.h). A sitting reads as run's does: plan (the jobs, each
// asked in its worker whether it is to be timed: bench/bench_plan.h), open the outputs
// (session/job/job_sitting.h: job.json, --resume, reports/output_sets.h's add_bench_outputs), measure
// through the workers, finish. Each case's inputs are generated once and its output checked once
// against the reference, outside the timed region; then the op is launched again and again on the
// same device buffers. A worker that crashes or hangs, in query_op or in the case, costs its row
// alone (CRASHED, TIMEOUT). SIGINT or SIGTERM stops it as it stops run: what was measured is
// written (complete: false), exit 130, and --resume goes on from there. Under mpirun or srun with
// --devices (BenchSettings::world), the ranks share the cases and rank 0 writes (bench/bench_ranks.h).
#pragma once

#include <string>
#include <vector>

#include "bench/bench_settings.h"
#include "check/suite.h"
#include "session/planning/targets.h"

namespace opcert {

/// Flags opcert owns and Google Benchmark must not be given by the user (the CLI rejects them).
bool is_reserved_benchmark_flag(const std::string& flag);

/// Benchmarks `suite` on `targets` (the peer first). Returns 0, 1 when a selected backend's case
/// failed its check (FAILED, ERROR, CRASHED, TIMEOUT) or its timing failed, or kExitInterrupted. Throws InputError (exit 2) for a bad
/// filter, an --impl or filter that selects nothing, a bad Google Benchmark flag or an unusable
/// --out, and NoBackendError (exit 3), all before anything is timed.
int run_benchmarks(const std::vector<RunTarget>& targets, const Suite& suite, const BenchSettings& settings);

}  // namespace opcert
