#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <memory>

#include "bench/bench_platform.h"
#include "bench/collective_bench.h"
#include "bench/collective_bench_ledger.h"
#include "bench/sample_timer.h"
#include "reports/json_report_writer.h"
#include "session/job/run_header.h"
#include "session/planning/job_list.h"
#include "session/rank_loop/collective_loop.h"

namespace opcert {
namespace {

// The suite's case at `bytes`: x holds the count of that size; the id names the size.
Case sized_case(const Case& c, const CollectiveSpec& spec, uint64_t bytes) {
  Case sized = c;
  sized.inputs.at(0).shape = {spec.count};
  sized.outputs.at(0).shape = {spec.count};
  sized.id = fmt::format("{}.bytes{}", c.id, bytes);
  return sized;
}

// Every (backend, implementation, case, size), grouped by backend (one communicator each), the
// peers first so that a row's ratio is known when it is shown.
std::vector<CollectiveBenchJob> plan(const std::vector<RunTarget>& targets, const Suite& suite, const BenchSettings& s,
                                     const SweepSettings& sweep, int ranks) {
  std::vector<Job> jobs = plan_checked_jobs(backend_plans(targets), suite, s.filter, impl_globs(s.impl_selection));
  std::stable_sort(jobs.begin(), jobs.end(), [](const Job& a, const Job& b) { return a.peer > b.peer; });
  const std::vector<uint64_t> sizes = sweep_sizes(sweep);
  std::vector<CollectiveBenchJob> out;
  for (const Job& j : jobs) {
    const Case& c = suite.cases.at(j.case_index);
    const CollectiveSpec base = CollectiveSpec::of(c);
    int64_t last_count = -1;
    for (uint64_t asked : sizes) {
      CollectiveBenchJob job;
      job.spec = base;
      job.spec.count = count_for_size(base, asked, ranks);
      if (job.spec.count == last_count) continue;  // tiny sizes that round to the same count
      last_count = job.spec.count;
      job.bytes = size_of_count(base, job.spec.count, ranks);
      job.backend_index = j.backend_index;
      job.backend = j.backend;
      job.impl_key = j.impl_key;
      job.peer = j.peer;
      job.case_index = j.case_index;
      job.sized = sized_case(c, job.spec, job.bytes);
      job.name = job.sized.id + "/" + j.impl_key;
      out.push_back(std::move(job));
    }
  }
  return out;
}

nlohmann::json bench_settings_json(const CollectiveBenchSettings& cs) {
  return {{"cold_l2", false},
          {"copy_baseline", false},
          {"benchmark_flags", nlohmann::json::array()},
          {"collectives",
           {{"min_bytes", cs.sweep.min_bytes},
            {"max_bytes", cs.sweep.max_bytes},
            {"step_factor", cs.sweep.step_factor},
            {"iters", cs.iters},
            {"warmup", cs.warmup},
            {"timeout_s", static_cast<double>(cs.timeout.count()) / 1000.0},
            {"time_over_ranks", "mean"}}}};
}

// The bench's step: one collective checked (a wrong result fails the row), `warmup` untimed, then
// `iters` timed in one batch; the ranks agree between the parts, so every rank starts the timed
// batch together and a rank that failed stands the others down.
class TimedStep {
 public:
  explicit TimedStep(const CollectiveBenchSettings& cs) : cs_(cs) {}

  void operator()(StepRun& run) {
    bool ok = true;
    try {
      run.prepared.run(run.comm.comm);
      run.result = run.prepared.check();
    } catch (const std::exception& e) {
      run.result = run.failure(e);
      ok = false;
    }
    if (run.session.agree(ok ? 1 : 0, run.start, "finish the checked collective") != 1) return;
    try {
      for (int i = 0; i < cs_.warmup; ++i) run.prepared.launch(run.comm.comm);
      run.backend.synchronize(run.device);
    } catch (const std::exception& e) {
      run.result = run.failure(e);
      ok = false;
    }
    if (run.session.agree(ok ? 1 : 0, run.start, "finish the warm-up") != 1) return;
    SampleTimer& timer = timer_for(run.backend, run.device);
    run.extra["timing"] = timer.method();
    try {
      const double batch = timer.time([&] {
        for (int i = 0; i < cs_.iters; ++i) run.prepared.launch(run.comm.comm);
      });
      run.extra["seconds"] = batch / cs_.iters;
    } catch (const std::exception& e) {
      run.result = run.failure(e);
    }
  }

 private:
  SampleTimer& timer_for(BackendHandle& backend, opcert_device device) {
    auto& slot = timers_[&backend];
    if (!slot) slot = std::make_unique<SampleTimer>(backend, device);
    return *slot;
  }

  const CollectiveBenchSettings& cs_;
  std::map<BackendHandle*, std::unique_ptr<SampleTimer>> timers_;
};

}  // namespace

int run_collective_benchmarks(const std::vector<RunTarget>& targets, const Suite& suite, const BenchSettings& settings,
                              const CollectiveBenchSettings& collective, World& world) {
  // The peer takes part only when it has collectives (e.g. torch.<op>.gloo / .nccl).
  std::vector<RunTarget> usable;
  for (const RunTarget& t : targets)
    if (!t.peer || t.backend->has_collectives()) usable.push_back(t);
  std::vector<CollectiveBenchJob> jobs = plan(usable, suite, settings, collective.sweep, world.size());

  CollectiveLoop loop;
  loop.targets = usable;
  loop.timeout = collective.timeout;
  loop.what = "collective";
  for (const auto& job : jobs) loop.steps.push_back({job.backend_index, job.impl_key, &job.sized, job.name});
  loop.make_ledger = [&] {
    RunReport header = run_header(kBenchReportKind, usable, suite, settings);
    header.ranks = world.size();
    header.launcher = world.launcher();
    header.bench_settings = bench_settings_json(collective);
    return std::make_unique<CollectiveBenchLedger>(std::move(header), settings, collective, jobs, world.size());
  };
  auto step = std::make_shared<TimedStep>(collective);  // std::function copies what it holds
  loop.body = [step](StepRun& run) { (*step)(run); };
  return run_collective_loop(loop, world);
}

}  // namespace opcert
