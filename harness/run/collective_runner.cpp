#include "run/collective_runner.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <csignal>
#include <cstdlib>
#include <exception>
#include <functional>
#include <memory>
#include <stdexcept>
#include <thread>

#include "check/collectives/collective_case.h"
#include "check/prepared_case.h"
#include "model/case_result_json.h"
#include "model/exit_codes.h"
#include "model/input_error.h"
#include "run/job_list.h"
#include "run/rank_record.h"
#include "run/rank_watchdog.h"
#include "run/run_paths.h"
#include "run/stop_request.h"

namespace opcert {
namespace {

using Clock = std::chrono::steady_clock;
using nlohmann::json;

constexpr std::chrono::seconds kStartupWait{120};  // ranks load backends and suites at their own pace

std::vector<BackendPlan> plans_of(const std::vector<RunTarget>& targets) {
  std::vector<BackendPlan> plans;
  for (const auto& t : targets) plans.push_back({t.backend->name(), t.backend->implementations(), t.peer});
  return plans;
}

// A fingerprint of the job list: the ranks must run the same cases in the same order.
int64_t fingerprint(const std::vector<Job>& jobs, const Suite& suite) {
  std::string all;
  for (const Job& j : jobs) all += j.backend + '\n' + j.impl_key + '\n' + suite.cases[j.case_index].id + '\n';
  return static_cast<int64_t>(std::hash<std::string>{}(all) >> 2);
}

// One rank's communicator on one backend, rebuilt after a failure.
struct Communicator {
  opcert_comm* comm = nullptr;
  std::string error;  // why there is none
};

class RankRun {
 public:
  RankRun(const std::vector<RunTarget>& targets, const Suite& suite, const RunSettings& s, World& world,
          std::vector<Job> jobs)
      : targets_(targets), suite_(suite), s_(s), world_(world), jobs_(std::move(jobs)),
        grace_(collective_grace(s.timeout)) {}

  int run();

 private:
  void run_backend(std::size_t backend_index, std::size_t first, std::size_t last);
  void run_case(std::size_t job, BackendHandle& backend, opcert_device device, Communicator& comm);
  void rebuild(BackendHandle& backend, opcert_device device, Communicator& comm, Clock::time_point start);
  void collect(std::size_t job, CaseResult mine, Clock::time_point start);
  void setup_root();
  void agree_on_setup();
  [[noreturn]] void lose_job(const std::string& why);
  void on_overrun(std::size_t job);
  void on_stop();
  // The waits of a case end at case_deadline; a backend call still running half a grace later
  // is stuck (the watchdog); rank 0 waits for the ranks' results until collect_deadline.
  Deadline case_deadline(Clock::time_point start) const { return start + s_.timeout + grace_; }
  Deadline stuck_deadline(Clock::time_point start) const { return start + s_.timeout + grace_ + grace_ / 2; }
  Deadline collect_deadline(Clock::time_point start) const { return start + s_.timeout + 2 * grace_; }

  const std::vector<RunTarget>& targets_;
  const Suite& suite_;
  const RunSettings& s_;
  World& world_;
  std::vector<Job> jobs_;
  std::chrono::milliseconds grace_;
  std::unique_ptr<RankRecord> record_;  // rank 0 only
  std::exception_ptr setup_error_;       // rank 0 only: why setup_root failed
  std::unique_ptr<RankWatchdog> watchdog_;
  std::atomic<std::size_t> current_{0};
};

std::string encode(std::size_t job, bool stuck, const CaseResult& r) {
  return json{{"job", job}, {"stuck", stuck}, {"result", to_json(r)}}.dump();
}

}  // namespace

std::chrono::milliseconds collective_grace(std::chrono::milliseconds timeout) {
  return std::clamp<std::chrono::milliseconds>(timeout / 2, std::chrono::seconds(2), std::chrono::seconds(30));
}

void RankRun::on_stop() {
  // A signal on rank 0: the launcher ends the job (a rank died) or the user interrupted it.
  const int sig = stop_signal();
  record_->record_lost(Status::kError,
                       fmt::format("the job was stopped by {} during this case: a rank died, or the launcher or the "
                                   "user ended the job",
                                   sig == SIGTERM ? "SIGTERM" : "SIGINT"),
                       "not run: the job was stopped before this case");
  record_->finish(false, kExitInterrupted);
  std::fflush(nullptr);
  _exit(kExitInterrupted);
}

void RankRun::on_overrun(std::size_t job) {
  const std::string what = fmt::format(
      "rank {}: the backend did not return from the case within the timeout ({} s) plus {} s: it ignores the "
      "communicator's timeout; the job is ended",
      world_.rank(), s_.timeout.count() / 1000.0, grace_.count() / 1000.0);
  if (world_.rank() == 0) {
    record_->record_lost(Status::kTimeout, what, "not run: rank 0 was stuck in a backend call");
    record_->finish(false);
    world_.abort_job(kExitCheckFailed);
  }
  // Tell rank 0, give it the time to write the reports and end the job, then end it ourselves.
  CaseResult r;
  r.status = Status::kTimeout;
  r.message = what;
  r.rank = world_.rank();
  world_.send_to_root(encode(job, true, r), Clock::now() + grace_);
  std::this_thread::sleep_for(2 * grace_);
  world_.abort_job(kExitCheckFailed);
}

void RankRun::lose_job(const std::string& why) {
  if (world_.rank() == 0) {
    if (record_) {  // absent before the run started: nothing to record yet
      record_->record_lost(Status::kTimeout, why, fmt::format("not run: {}", why));
      record_->finish(false);
    }
    fmt::print(stderr, "opcert: {}; the reports are written, ending the MPI job\n", why);
    world_.abort_job(kExitCheckFailed);
  }
  // Rank 0 sees the same loss and ends the job once the reports are written; only if it does
  // not (it is gone too) does this rank end it.
  fmt::print(stderr, "opcert: rank {}: {}; waiting for rank 0 to end the MPI job\n", world_.rank(), why);
  if (watchdog_) watchdog_->disarm();
  std::this_thread::sleep_for(2 * grace_);
  world_.abort_job(kExitCheckFailed);
  std::_Exit(kExitCheckFailed);  // abort_job does not return; the compiler cannot see through the virtual call
}

void RankRun::rebuild(BackendHandle& backend, opcert_device device, Communicator& comm, Clock::time_point start) {
  if (comm.comm != nullptr) {
    try {
      backend.comm_abort(comm.comm);
    } catch (const std::exception&) {  // being torn down anyway
    }
    backend.comm_destroy(comm.comm);
    comm.comm = nullptr;
  }
  // Rank 0's id, with its length in front (0: rank 0 could not make one).
  std::vector<uint8_t> blob(4 + OPCERT_COMM_UNIQUE_ID_BYTES, 0);
  std::string rank0_error;
  if (world_.rank() == 0) {
    try {
      const std::vector<uint8_t> id = backend.comm_unique_id();
      blob[0] = static_cast<uint8_t>(id.size() & 0xFF);
      blob[1] = static_cast<uint8_t>(id.size() >> 8);
      blob[2] = 1;  // made
      std::copy(id.begin(), id.end(), blob.begin() + 4);
    } catch (const std::exception& e) {
      rank0_error = e.what();
    }
  }
  if (!world_.broadcast(blob, 0, case_deadline(start))) lose_job("rank 0's unique id did not reach every rank in time");
  if (blob[2] == 0) {
    comm.error = world_.rank() == 0 ? rank0_error : "rank 0 could not make the communicator's unique id";
    return;
  }
  const std::size_t id_bytes = blob[0] | (static_cast<std::size_t>(blob[1]) << 8);
  const std::vector<uint8_t> id(blob.begin() + 4, blob.begin() + 4 + static_cast<std::ptrdiff_t>(id_bytes));
  try {
    comm.comm = backend.comm_init(device, world_.rank(), world_.size(), id, s_.timeout.count() / 1000.0);
    comm.error.clear();
  } catch (const std::exception& e) {
    comm.error = e.what();
  }
}

void RankRun::run_case(std::size_t job, BackendHandle& backend, opcert_device device, Communicator& comm) {
  const Job& j = jobs_[job];
  const Case& c = suite_.cases[j.case_index];
  const auto start = Clock::now();
  watchdog_->arm(stuck_deadline(start), [this, job] { on_overrun(job); });

  const auto healthy = world_.all_min(comm.comm != nullptr ? 1 : 0, case_deadline(start));
  if (!healthy) lose_job("a rank did not reach the case in time (it died or hangs)");
  if (*healthy == 0) rebuild(backend, device, comm, start);

  CaseResult result;
  std::unique_ptr<PreparedCollective> prepared;
  if (comm.comm == nullptr) {
    result = blank_result(backend, j.impl_key, c);
    result.rank = world_.rank();
    result.status = Status::kError;
    result.message = fmt::format("rank {}: no communicator: {}", world_.rank(), comm.error);
  } else {
    prepared = PreparedCollective::prepare(backend, j.impl_key, c, device, {world_.rank(), world_.size()}, result);
  }
  const auto ready = world_.all_min(prepared ? 1 : 0, case_deadline(start));
  if (!ready) lose_job("a rank did not get ready for the case in time (it died or hangs)");
  if (*ready == 1) {
    try {
      prepared->run(comm.comm);
      result = prepared->check();
    } catch (const std::exception& e) {
      result = blank_result(backend, j.impl_key, c);
      result.rank = world_.rank();
      result.status = collective_failure_status(e);
      result.message = fmt::format("rank {}: {}", world_.rank(), e.what());
      try {
        backend.comm_abort(comm.comm);  // so that the other ranks fail too instead of waiting
      } catch (const std::exception&) {
      }
      backend.comm_destroy(comm.comm);
      comm.comm = nullptr;
      comm.error = "it was aborted after a failed case";
    }
  } else if (prepared) {
    result.status = Status::kSkipped;
    result.message = "not run: another rank could not run the case (its result says why)";
  }
  watchdog_->disarm();
  result.duration_ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
  collect(job, std::move(result), start);
}

void RankRun::collect(std::size_t job, CaseResult mine, Clock::time_point start) {
  if (world_.rank() != 0) {
    // A failed send means rank 0 is gone; it then ended the job or will.
    world_.send_to_root(encode(job, false, mine), collect_deadline(start));
    return;
  }
  record_->add(std::move(mine));
  std::string lost;
  for (int from = 1; from < world_.size(); ++from) {
    // Past the deadline (a rank was silent) receive_from still takes a result already here: the
    // later ranks' results are kept, and only the ranks that sent nothing are recorded TIMEOUT.
    const auto message = world_.receive_from(from, collect_deadline(start));
    if (!message) {
      if (lost.empty())
        lost = fmt::format("rank {} did not report its result within {} s: it died or hangs", from,
                           (s_.timeout + 2 * grace_).count() / 1000.0);
      continue;
    }
    try {
      const json m = json::parse(*message);
      if (m.at("job").get<std::size_t>() != job) throw std::runtime_error("it answered another case");
      // A stuck rank's watchdog sends only the status and message; the names come from the case.
      const bool stuck = m.at("stuck").get<bool>();
      CaseResult r = stuck ? record_->synthesized(job, from, Status::kTimeout, m.at("result").at("message").get<std::string>())
                           : case_result_from_json(m.at("result"));
      r.rank = from;
      record_->add(std::move(r));
      if (stuck && lost.empty()) lost = fmt::format("rank {} is stuck in a backend call", from);
    } catch (const std::exception& e) {
      if (lost.empty()) lost = fmt::format("rank {} sent a result rank 0 cannot read ({})", from, e.what());
    }
  }
  if (!lost.empty()) lose_job(lost);
}

void RankRun::run_backend(std::size_t b, std::size_t first, std::size_t last) {
  BackendHandle& backend = *targets_[b].backend;
  const auto& devices = backend.devices();
  if (devices.empty()) throw NoBackendError(fmt::format("backend '{}' has no device", backend.name()));
  // One device per rank: the local rank picks it (docs/CLI.md).
  const opcert_device device = devices[static_cast<std::size_t>(world_.local_rank()) % devices.size()].device;
  Communicator comm;
  for (std::size_t job = first; job < last; ++job) {
    current_ = job;
    if (record_) record_->begin_job(job);
    run_case(job, backend, device, comm);
  }
  if (comm.comm != nullptr) backend.comm_destroy(comm.comm);
}

void RankRun::setup_root() {
  try {
    prepare_out_dir(s_.out_dir);
    RunReport header = report_header(targets_, suite_, s_);
    header.ranks = world_.size();
    header.launcher = world_.launcher();
    record_ = std::make_unique<RankRecord>(std::move(header), s_, suite_, jobs_, targets_, world_.size());
  } catch (const std::exception&) {
    setup_error_ = std::current_exception();
  }
}

// Only rank 0 sets up (--out, the report): every rank learns whether it could, so that a bad
// --out ends all ranks at once with rank 0's exit code instead of leaving them to time out.
// 1: ready; 0: bad input (exit 2); -1: any other failure (exit 1).
void RankRun::agree_on_setup() {
  int64_t mine = 1;
  if (setup_error_) {
    try {
      std::rethrow_exception(setup_error_);
    } catch (const InputError&) {
      mine = 0;
    } catch (...) {
      mine = -1;
    }
  }
  const auto agreed = world_.all_min(mine, Clock::now() + kStartupWait);
  if (!agreed) lose_job("the ranks did not all start within 120 s");
  if (setup_error_) std::rethrow_exception(setup_error_);
  if (*agreed == 0) throw InputError("rank 0 could not start the run (its message says why)");
  if (*agreed < 0) throw std::runtime_error("rank 0 could not start the run (its message says why)");
}

int RankRun::run() {
  const bool root = world_.rank() == 0;
  const int64_t mine = fingerprint(jobs_, suite_);
  const auto low = world_.all_min(mine, Clock::now() + kStartupWait);
  const auto high = world_.all_min(-mine, Clock::now() + kStartupWait);
  if (!low || !high) lose_job("the ranks did not all start within 120 s");
  if (*low != mine || -*high != mine)
    throw InputError("the ranks disagree on the cases to run: give every rank the same suite, filter, backends and plugins");

  if (root) setup_root();
  agree_on_setup();
  if (root) {
    if (!world_.single_rank_reason().empty()) fmt::print(stderr, "opcert: {}\n", world_.single_rank_reason());
    else fmt::print(stderr, "opcert: collectives across {} ranks ({})\n", world_.size(), world_.launcher());
    install_stop_handlers();
  }
  watchdog_ = std::make_unique<RankWatchdog>(root ? std::function<void()>([this] { on_stop(); }) : nullptr);

  for (std::size_t first = 0; first < jobs_.size();) {
    std::size_t last = first;
    while (last < jobs_.size() && jobs_[last].backend_index == jobs_[first].backend_index) ++last;
    run_backend(jobs_[first].backend_index, first, last);
    first = last;
  }

  std::vector<uint8_t> code(1, 0);
  if (root) code[0] = static_cast<uint8_t>(record_->finish(true));
  watchdog_.reset();
  if (root) remove_stop_handlers();
  if (!world_.broadcast(code, 0, Clock::now() + kStartupWait)) return kExitCheckFailed;
  return code[0];
}

int run_collectives(const std::vector<RunTarget>& targets, const Suite& suite, const RunSettings& settings, World& world) {
  std::vector<BackendPlan> plans = plans_of(targets);
  std::vector<Job> jobs = plan_checked_jobs(plans, suite, settings.filter, settings.impl_selection);
  // The peer runs no collectives (torch has none here); keep the selected backends' jobs.
  jobs.erase(std::remove_if(jobs.begin(), jobs.end(), [](const Job& j) { return j.peer; }), jobs.end());
  RankRun run(targets, suite, settings, world, std::move(jobs));
  return run.run();
}

}  // namespace opcert
