#include "bench/bench_plan.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "bench/bench_platform.h"
#include "bench/roofline.h"

namespace opcert {
namespace {

// The copy baseline timed just before the first job of its backend on the case.
BenchJob copy_baseline_job(const BenchJob& op_job) {
  BenchJob copy;
  copy.backend = op_job.backend;
  copy.impl_key = op_job.backend->name() + ".copy";
  copy.test_case = op_job.test_case;
  copy.copy_baseline = true;
  copy.name = op_job.test_case->id + "/" + copy.impl_key;
  copy.work = op_job.work;
  copy.platform = op_job.platform;
  return copy;
}

}  // namespace

std::vector<Job> ordered_bench_jobs(const std::vector<RunTarget>& targets, const Suite& suite, const BenchSettings& s,
                                    const nlohmann::json& gpus, std::string& choice) {
  const bool by_default = s.impl_selection.empty();
  auto jobs = plan_checked_jobs(backend_plans(targets), suite, s.filter, impl_globs(s.impl_selection));
  choice = by_default ? keep_production_keys(jobs, targets, suite, s, gpus) : "";
  std::stable_sort(jobs.begin(), jobs.end(), [](const Job& a, const Job& b) { return a.case_index < b.case_index; });
  return jobs;
}

BenchPlan plan_benchmarks(const std::vector<Job>& planned, const std::vector<RunTarget>& targets, const Suite& suite,
                          const BenchSettings& s, BenchWorkers& workers, const nlohmann::json& gpus) {
  BenchPlan plan;
  std::vector<BenchJob>& jobs = plan.jobs;
  std::map<std::size_t, std::size_t> peer_job_of_case;
  std::map<std::pair<BackendHandle*, std::size_t>, std::size_t> copy_job_of;  // (backend, case) -> job
  for (const Job& j : planned) {
    BackendHandle* backend = targets.at(j.backend_index).backend;
    const Case& c = suite.cases.at(j.case_index);
    std::string library_call;
    if (auto verdict = workers.unsupported(*backend, j.impl_key, c, library_call)) {
      plan.verdicts.push_back(std::move(*verdict));
      continue;
    }
    BenchJob job;
    job.library_call = std::move(library_call);
    job.backend = backend;
    job.impl_key = j.impl_key;
    job.test_case = &c;
    job.peer = j.peer;
    job.name = c.id + "/" + j.impl_key;
    try {
      job.work = work_model(c);
    } catch (const std::exception& e) {
      job.error = fmt::format("no work model: {}", e.what());
    }
    job.platform = bench_platform(*backend, s, gpus);
    const bool is_peer = !s.peer.empty() && backend->name() == s.peer;
    if (is_peer && !peer_job_of_case.contains(j.case_index))
      peer_job_of_case[j.case_index] = jobs.size();
    else if (!is_peer)
      if (auto it = peer_job_of_case.find(j.case_index); it != peer_job_of_case.end()) job.peer_job = it->second;
    if (s.copy_baseline && !job.peer && job.error.empty() && !job.work.compute_bound && job.work.bytes > 0) {
      const auto key = std::make_pair(backend, j.case_index);
      if (!copy_job_of.contains(key)) {
        copy_job_of[key] = jobs.size();
        jobs.push_back(copy_baseline_job(job));
      }
      job.copy_job = copy_job_of[key];
    }
    jobs.push_back(std::move(job));
  }
  return plan;
}

}  // namespace opcert
