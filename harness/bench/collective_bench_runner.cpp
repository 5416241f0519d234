#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <map>

#include "bench/collective_bench.h"
#include "bench/collective_bench_record.h"
#include "bench/sample_timer.h"
#include "check/collectives/collective_case.h"
#include "check/prepared_case.h"
#include "model/case_result_json.h"
#include "run/collective_runner.h"
#include "run/collective_step.h"
#include "run/job_list.h"
#include "run/rank_session.h"

namespace opcert {
namespace {

using Clock = std::chrono::steady_clock;
using nlohmann::json;

// The suite's case at `bytes`: x holds the count of that size; the id names the size.
Case sized_case(const Case& c, const CollectiveSpec& spec, uint64_t bytes) {
  Case sized = c;
  sized.inputs.at(0).shape = {spec.count};
  sized.outputs.at(0).shape = {spec.count};
  sized.id = fmt::format("{}.bytes{}", c.id, bytes);
  return sized;
}

// Every (backend, implementation, case, size), grouped by backend (one communicator each), the
// peers first so that a row's ratio is known when it is printed.
std::vector<CollectiveBenchJob> plan(const std::vector<RunTarget>& targets, const Suite& suite, const BenchSettings& s,
                                     const SweepSettings& sweep, int ranks) {
  std::vector<Job> jobs = plan_checked_jobs(backend_plans(targets), suite, s.filter, s.impl_selection);
  std::stable_sort(jobs.begin(), jobs.end(), [](const Job& a, const Job& b) { return a.peer > b.peer; });
  const std::vector<uint64_t> sizes = sweep_sizes(sweep);
  std::vector<CollectiveBenchJob> out;
  for (const Job& j : jobs) {
    const Case& c = suite.cases.at(j.case_index);
    CollectiveSpec base = CollectiveSpec::of(c);
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

// The job list as the ranks compare it: they must run the same steps in the same order.
std::string job_list(const std::vector<CollectiveBenchJob>& jobs) {
  std::string all;
  for (const auto& j : jobs) all += j.name + '\n';
  return all;
}

class BenchRankRun {
 public:
  BenchRankRun(const std::vector<RunTarget>& targets, const Suite& suite, const BenchSettings& s,
               const CollectiveBenchSettings& cs, World& world, std::vector<CollectiveBenchJob> jobs)
      : targets_(targets), suite_(suite), s_(s), cs_(cs), world_(world), jobs_(std::move(jobs)),
        session_(world, cs.timeout) {}

  int run();

 private:
  void run_backend(std::size_t backend_index, std::size_t first, std::size_t last);
  void run_step(std::size_t step, BackendHandle& backend, opcert_device device, Communicator& comm, SampleTimer& timer);

  const std::vector<RunTarget>& targets_;
  const Suite& suite_;
  const BenchSettings& s_;
  const CollectiveBenchSettings& cs_;
  World& world_;
  std::vector<CollectiveBenchJob> jobs_;
  RankSession session_;
  CollectiveBenchRecord* record_ = nullptr;  // rank 0: the session's ledger
};

}  // namespace

void BenchRankRun::run_step(std::size_t step, BackendHandle& backend, opcert_device device, Communicator& comm,
                            SampleTimer& timer) {
  const CollectiveBenchJob& job = jobs_[step];
  const auto start = session_.begin_step(step);
  session_.ensure_communicator(backend, device, comm, start);  // before the query: it may need the rank count

  CaseResult result;
  std::optional<double> seconds;
  std::unique_ptr<PreparedCollective> prepared =
      prepare_collective_step(backend, job.impl_key, job.sized, device, comm, world_, result);
  const auto failure = [&](const std::exception& e) {
    return failed_collective_step(backend, job.impl_key, job.sized, world_, e, comm, "collective");
  };
  if (session_.agree(prepared ? 1 : 0, start, "get ready for the collective") == 1) {
    bool ok = true;
    try {  // one collective, checked: a wrong result fails the row
      prepared->run(comm.comm);
      result = prepared->check();
    } catch (const std::exception& e) {
      result = failure(e);
      ok = false;
    }
    if (session_.agree(ok ? 1 : 0, start, "finish the checked collective") == 1) {
      try {
        for (int i = 0; i < cs_.warmup; ++i) prepared->launch(comm.comm);
        backend.synchronize(device);
      } catch (const std::exception& e) {
        result = failure(e);
        ok = false;
      }
      // Also the barrier before the timed batch: every rank starts it together.
      if (session_.agree(ok ? 1 : 0, start, "finish the warm-up") == 1) {
        try {
          const double batch = timer.time([&] {
            for (int i = 0; i < cs_.iters; ++i) prepared->launch(comm.comm);
          });
          seconds = batch / cs_.iters;
        } catch (const std::exception& e) {
          result = failure(e);
        }
      }
    }
  } else if (prepared) {
    stand_down_collective_step(result, "collective");
  }
  session_.end_step();
  result.duration_ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
  session_.collect(step,
                   {{"result", to_json(result)}, {"seconds", seconds ? json(*seconds) : json(nullptr)},
                    {"timing", timer.method()}},
                   start);
  if (record_) record_->end_step();
}

void BenchRankRun::run_backend(std::size_t b, std::size_t first, std::size_t last) {
  BackendHandle& backend = *targets_[b].backend;
  const opcert_device device = rank_device(backend, world_);
  SampleTimer timer(backend, device);
  Communicator comm;
  for (std::size_t step = first; step < last; ++step) run_step(step, backend, device, comm, timer);
  if (comm.comm != nullptr) backend.comm_destroy(comm.comm);
}

int BenchRankRun::run() {
  session_.start(job_list(jobs_), [this] {
    CollectiveBenchContext context;
    context.targets = &targets_;
    context.suite = &suite_;
    context.settings = &s_;
    context.collective = cs_;
    context.ranks = world_.size();
    context.launcher = world_.launcher();
    context.started = std::chrono::system_clock::now();
    auto record = std::make_unique<CollectiveBenchRecord>(std::move(context), jobs_, stdout);
    record_ = record.get();
    return record;
  });
  for_each_backend_span(jobs_, [this](std::size_t b, std::size_t first, std::size_t last) { run_backend(b, first, last); });
  return session_.finish();
}

int run_collective_benchmarks(const std::vector<RunTarget>& targets, const Suite& suite, const BenchSettings& settings,
                              const CollectiveBenchSettings& collective, World& world) {
  // The peer takes part only when it has collectives (torch.<op>.gloo / .nccl).
  std::vector<RunTarget> usable;
  for (const RunTarget& t : targets)
    if (!t.peer || t.backend->has_collectives()) usable.push_back(t);
  BenchRankRun run(usable, suite, settings, collective, world, plan(usable, suite, settings, collective.sweep, world.size()));
  return run.run();
}

}  // namespace opcert
