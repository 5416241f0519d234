#include "run/collective_runner.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <functional>
#include <memory>

#include "check/collectives/collective_case.h"
#include "check/prepared_case.h"
#include "model/case_result_json.h"
#include "model/input_error.h"
#include "run/collective_step.h"
#include "run/job_list.h"
#include "run/rank_record.h"
#include "run/rank_session.h"
#include "run/run_paths.h"

namespace opcert {
namespace {

using Clock = std::chrono::steady_clock;
using nlohmann::json;

// The job list as the ranks compare it: they must run the same cases in the same order.
std::string job_list(const std::vector<Job>& jobs, const Suite& suite) {
  std::string all;
  for (const Job& j : jobs) all += j.backend + '\n' + j.impl_key + '\n' + suite.cases[j.case_index].id + '\n';
  return all;
}

// Rank 0's ledger of a run: each rank's CaseResult of each case, into the RankRecord.
class CaseLedger : public RankLedger {
 public:
  explicit CaseLedger(std::unique_ptr<RankRecord> record) : record_(std::move(record)) {}
  void begin_step(std::size_t step) override {
    step_ = step;
    record_->begin_job(step);
  }
  void add(int from, const json& outcome) override {
    CaseResult r = case_result_from_json(outcome);
    r.rank = from;
    record_->add(std::move(r));
  }
  void add_stuck(int from, const std::string& message) override {
    // A stuck rank's watchdog sends only its message; the names come from the case.
    record_->add(record_->synthesized(step_, from, Status::kTimeout, message));
  }
  void record_lost(Status status, const std::string& now_message, const std::string& later_message) override {
    record_->record_lost(status, now_message, later_message);
  }
  int finish(bool complete, std::optional<int> forced) override { return record_->finish(complete, forced); }

 private:
  std::unique_ptr<RankRecord> record_;
  std::size_t step_ = 0;
};

class RankRun {
 public:
  RankRun(const std::vector<RunTarget>& targets, const Suite& suite, const RunSettings& s, World& world,
          std::vector<Job> jobs)
      : targets_(targets), suite_(suite), s_(s), world_(world), jobs_(std::move(jobs)), session_(world, s.timeout) {}

  int run();

 private:
  void run_backend(std::size_t backend_index, std::size_t first, std::size_t last);
  void run_case(std::size_t job, BackendHandle& backend, opcert_device device, Communicator& comm);
  std::unique_ptr<RankLedger> make_ledger();

  const std::vector<RunTarget>& targets_;
  const Suite& suite_;
  const RunSettings& s_;
  World& world_;
  std::vector<Job> jobs_;
  RankSession session_;
};

}  // namespace

void RankRun::run_case(std::size_t job, BackendHandle& backend, opcert_device device, Communicator& comm) {
  const Job& j = jobs_[job];
  const Case& c = suite_.cases[j.case_index];
  const auto start = session_.begin_step(job);
  session_.ensure_communicator(backend, device, comm, start);

  CaseResult result;
  std::unique_ptr<PreparedCollective> prepared = prepare_collective_step(backend, j.impl_key, c, device, comm, world_, result);
  if (session_.agree(prepared ? 1 : 0, start, "get ready for the case") == 1) {
    try {
      prepared->run(comm.comm);
      result = prepared->check();
    } catch (const std::exception& e) {
      result = failed_collective_step(backend, j.impl_key, c, world_, e, comm, "case");
    }
  } else if (prepared) {
    stand_down_collective_step(result, "case");
  }
  session_.end_step();
  result.duration_ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
  session_.collect(job, to_json(result), start);
}

void RankRun::run_backend(std::size_t b, std::size_t first, std::size_t last) {
  BackendHandle& backend = *targets_[b].backend;
  const opcert_device device = rank_device(backend, world_);
  Communicator comm;
  for (std::size_t job = first; job < last; ++job) run_case(job, backend, device, comm);
  if (comm.comm != nullptr) backend.comm_destroy(comm.comm);
}

std::unique_ptr<RankLedger> RankRun::make_ledger() {
  prepare_out_dir(s_.out_dir);
  RunReport header = report_header(targets_, suite_, s_);
  header.ranks = world_.size();
  header.launcher = world_.launcher();
  return std::make_unique<CaseLedger>(
      std::make_unique<RankRecord>(std::move(header), s_, suite_, jobs_, targets_, world_.size()));
}

int RankRun::run() {
  session_.start(job_list(jobs_, suite_), [this] { return make_ledger(); });
  for_each_backend_span(jobs_, [this](std::size_t b, std::size_t first, std::size_t last) { run_backend(b, first, last); });
  return session_.finish();
}

opcert_device rank_device(const BackendHandle& backend, const World& world) {
  const auto& devices = backend.devices();
  if (devices.empty()) throw NoBackendError(fmt::format("backend '{}' has no device", backend.name()));
  // One device per rank: the local rank picks it (docs/CLI.md).
  return devices[static_cast<std::size_t>(world.local_rank()) % devices.size()].device;
}

int run_collectives(const std::vector<RunTarget>& targets, const Suite& suite, const RunSettings& settings, World& world) {
  std::vector<Job> jobs = plan_checked_jobs(backend_plans(targets), suite, settings.filter, settings.impl_selection);
  // The peer runs no collectives here (it is the bench's yardstick); keep the selected backends' jobs.
  jobs.erase(std::remove_if(jobs.begin(), jobs.end(), [](const Job& j) { return j.peer; }), jobs.end());
  RankRun run(targets, suite, settings, world, std::move(jobs));
  return run.run();
}

}  // namespace opcert
