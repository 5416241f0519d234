// What one sitting of `opcert bench` times (bench/bench_runner.h): the planned jobs grouped by
// case (suite order), the peer first within a case so that every row's speedup is known when it
// is printed. Each job is first asked in its backend's worker whether it is to be timed (query_op
// and the memory admission, bench/bench_workers.h): one that is not is a verdict, never a
// benchmark. With --copy-baseline a memory-bound job's copy baseline is put just before it.
#pragma once

#include <nlohmann/json.hpp>

#include <vector>

#include "bench/bench_job.h"
#include "bench/bench_settings.h"
#include "bench/bench_workers.h"
#include "check/suite.h"
#include "model/case_result.h"
#include "session/planning/job_list.h"
#include "session/planning/targets.h"

namespace opcert {

struct BenchPlan {
  std::vector<BenchJob> jobs;         ///< to be timed, in order; each linked to its peer's and copy's job
  std::vector<CaseResult> verdicts;   ///< the jobs not to be timed: SKIPPED, or why query_op failed
};

/// The jobs of `suite` on `targets` (session/planning/job_list.h's plan_checked_jobs) in the order they are
/// timed: without --impl, the production keys of the backends' platforms and the peer
/// (bench/bench_platform.h), and `choice` says which and why; --impl all, every implementation.
/// Throws InputError as plan_checked_jobs does, before any worker starts.
std::vector<Job> ordered_bench_jobs(const std::vector<RunTarget>& targets, const Suite& suite, const BenchSettings& s,
                                    const nlohmann::json& gpus, std::string& choice);

/// The benchmarks of `planned`, their support asked of `workers`. `gpus` (the environment's) name
/// the CUDA devices a platform is matched against.
BenchPlan plan_benchmarks(const std::vector<Job>& planned, const std::vector<RunTarget>& targets, const Suite& suite,
                          const BenchSettings& s, BenchWorkers& workers, const nlohmann::json& gpus);

}  // namespace opcert
