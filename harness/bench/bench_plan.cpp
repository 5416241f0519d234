#include "bench/bench_plan.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

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

// The name a platform's `device` is matched against: the backend's own, and for a CUDA device the
// GPU's name from nvidia-smi too (a backend on LibTorch knows only "CUDA device 0").
std::string device_match_name(const BackendHandle& backend, const nlohmann::json& gpus) {
  const DeviceDescription& d = backend.devices().at(0);
  std::string name = d.name;
  if (d.device.type == OPCERT_DEVICE_CUDA && gpus.is_array())
    for (const auto& gpu : gpus)
      if (gpu.value("index", -1) == d.device.index && gpu.contains("name") && gpu["name"].is_string())
        name += " " + gpu["name"].get<std::string>();
  return name;
}

}  // namespace

std::vector<Job> ordered_bench_jobs(const std::vector<RunTarget>& targets, const Suite& suite, const BenchSettings& s) {
  auto jobs = plan_checked_jobs(backend_plans(targets), suite, s.filter, s.impl_selection);
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
    job.platform = s.platforms ? platform_for_device(*s.platforms, s.platform, device_match_name(*backend, gpus)) : nullptr;
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
