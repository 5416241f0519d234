#include "session/rank_loop/rank_session.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdlib>
#include <stdexcept>
#include <thread>

#include "model/exit_codes.h"
#include "model/input_error.h"
#include "ranks/rank_agreement.h"
#include "session/job/stop_request.h"

namespace opcert {
namespace {

using nlohmann::json;


std::string stuck_message(std::size_t step, const std::string& message) {
  return json{{"step", step}, {"stuck", true}, {"message", message}}.dump();
}

}  // namespace

std::chrono::milliseconds collective_grace(std::chrono::milliseconds timeout) {
  return std::clamp<std::chrono::milliseconds>(timeout / 2, std::chrono::seconds(2), std::chrono::seconds(30));
}

RankSession::RankSession(World& world, std::chrono::milliseconds timeout)
    : world_(world), timeout_(timeout), grace_(collective_grace(timeout)) {}

RankSession::~RankSession() {
  watchdog_.reset();
  if (handlers_installed_) remove_stop_handlers();
}

void RankSession::on_stop() {
  // A signal on rank 0: the launcher ends the job (a rank died) or the user interrupted it.
  const int sig = stop_signal();
  ledger_->record_lost(Status::kError,
                       fmt::format("the job was stopped by {} during this step: a rank died, or the launcher or the "
                                   "user ended the job",
                                   sig == SIGTERM ? "SIGTERM" : "SIGINT"),
                       "not run: the job was stopped before this step");
  ledger_->finish(false, kExitInterrupted);
  std::fflush(nullptr);
  _exit(kExitInterrupted);
}

void RankSession::on_overrun(std::size_t step) {
  const std::string what = fmt::format(
      "rank {}: the backend did not return within the timeout ({} s) plus {} s: it ignores the communicator's "
      "timeout; the job is ended",
      world_.rank(), timeout_.count() / 1000.0, grace_.count() / 1000.0);
  if (root()) {
    ledger_->record_lost(Status::kTimeout, what, "not run: rank 0 was stuck in a backend call");
    ledger_->finish(false);
    world_.abort_job(kExitCheckFailed);
  }
  // Tell rank 0, give it the time to write the outputs and end the job, then end it ourselves.
  world_.send_to_root(stuck_message(step, what), Clock::now() + grace_);
  std::this_thread::sleep_for(2 * grace_);
  world_.abort_job(kExitCheckFailed);
}

void RankSession::lose_job(const std::string& why) {
  if (root()) {
    if (ledger_) {  // absent before the job started: nothing to record yet
      ledger_->record_lost(Status::kTimeout, why, fmt::format("not run: {}", why));
      ledger_->finish(false);
    }
    fmt::print(stderr, "opcert: {}; the reports are written, ending the MPI job\n", why);
    world_.abort_job(kExitCheckFailed);
  }
  // Rank 0 sees the same loss and ends the job once the outputs are written; only if it does
  // not (it is gone too) does this rank end it.
  fmt::print(stderr, "opcert: rank {}: {}; waiting for rank 0 to end the MPI job\n", world_.rank(), why);
  if (watchdog_) watchdog_->disarm();
  std::this_thread::sleep_for(2 * grace_);
  world_.abort_job(kExitCheckFailed);
  std::_Exit(kExitCheckFailed);  // abort_job does not return; the compiler cannot see through the virtual call
}

// Only rank 0 sets up (--out, the report): every rank learns whether it could, so that a bad
// --out ends all ranks at once with rank 0's exit code instead of leaving them to time out.
void RankSession::agree_on_setup(std::exception_ptr setup_error) {
  if (!opcert::agree_on_setup(world_, setup_error)) lose_job("the ranks did not all start within 120 s");
}

void RankSession::start(const std::string& job_list, const std::function<std::unique_ptr<RankLedger>()>& make_ledger) {
  const auto fingerprint = static_cast<int64_t>(std::hash<std::string>{}(job_list) >> 2);  // >> 2: -fingerprint fits
  const auto low = world_.all_min(fingerprint, Clock::now() + kRankStartupWait);
  const auto high = world_.all_min(-fingerprint, Clock::now() + kRankStartupWait);
  if (!low || !high) lose_job("the ranks did not all start within 120 s");
  if (*low != fingerprint || -*high != fingerprint)
    throw InputError("the ranks disagree on the cases to run: give every rank the same suite, filter, backends and plugins");

  std::exception_ptr setup_error;
  if (root()) {
    try {
      ledger_ = make_ledger();
    } catch (const std::exception&) {
      setup_error = std::current_exception();
    }
  }
  agree_on_setup(setup_error);
  if (root()) {
    if (!world_.single_rank_reason().empty()) fmt::print(stderr, "opcert: {}\n", world_.single_rank_reason());
    else fmt::print(stderr, "opcert: collectives across {} ranks ({})\n", world_.size(), world_.launcher());
    install_stop_handlers();
    handlers_installed_ = true;
  }
  watchdog_ = std::make_unique<RankWatchdog>(root() ? std::function<void()>([this] { on_stop(); }) : nullptr);
}

RankSession::Clock::time_point RankSession::begin_step(std::size_t step) {
  if (ledger_) ledger_->begin_step(step);
  const auto start = Clock::now();
  watchdog_->arm(stuck_deadline(start), [this, step] { on_overrun(step); });
  return start;
}

void RankSession::end_step() { watchdog_->disarm(); }

int64_t RankSession::agree(int64_t mine, Clock::time_point start, const std::string& missed) {
  const auto agreed = world_.all_min(mine, step_deadline(start));
  if (!agreed) lose_job(fmt::format("a rank did not {} in time (it died or hangs)", missed));
  return *agreed;
}

void RankSession::drop_communicator(BackendHandle& backend, Communicator& comm, const std::string& why) {
  if (comm.comm == nullptr) return;
  try {
    backend.comm_abort(comm.comm);
  } catch (const std::exception&) {  // being torn down anyway
  }
  backend.comm_destroy(comm.comm);
  comm.comm = nullptr;
  comm.error = why;
}

void RankSession::ensure_communicator(BackendHandle& backend, opcert_device device, Communicator& comm,
                                      Clock::time_point start) {
  if (agree(comm.comm != nullptr ? 1 : 0, start, "reach the step") == 1) return;
  drop_communicator(backend, comm, "it is rebuilt");
  // Rank 0's id, with its length in front (0: rank 0 could not make one).
  std::vector<uint8_t> blob(4 + OPCERT_COMM_UNIQUE_ID_BYTES, 0);
  std::string rank0_error;
  if (root()) {
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
  if (!world_.broadcast(blob, 0, step_deadline(start))) lose_job("rank 0's unique id did not reach every rank in time");
  if (blob[2] == 0) {
    comm.error = root() ? rank0_error : "rank 0 could not make the communicator's unique id";
    return;
  }
  const std::size_t id_bytes = blob[0] | (static_cast<std::size_t>(blob[1]) << 8);
  const std::vector<uint8_t> id(blob.begin() + 4, blob.begin() + 4 + static_cast<std::ptrdiff_t>(id_bytes));
  try {
    comm.comm = backend.comm_init(device, world_.rank(), world_.size(), id, timeout_.count() / 1000.0);
    comm.error.clear();
  } catch (const std::exception& e) {
    comm.error = e.what();
  }
}

void RankSession::collect(std::size_t step, const json& outcome, Clock::time_point start) {
  if (!root()) {
    // A failed send means rank 0 is gone; it then ended the job or will.
    world_.send_to_root(json{{"step", step}, {"stuck", false}, {"outcome", outcome}}.dump(), collect_deadline(start));
    return;
  }
  ledger_->add(0, outcome);
  std::string lost;
  for (int from = 1; from < world_.size(); ++from) {
    // Past the deadline (a rank was silent) receive_from still takes a message already here: the
    // later ranks' outcomes are kept, and only the ranks that sent nothing are recorded TIMEOUT.
    const auto message = world_.receive_from(from, collect_deadline(start));
    if (!message) {
      if (lost.empty())
        lost = fmt::format("rank {} did not report its result within {} s: it died or hangs", from,
                           (timeout_ + 2 * grace_).count() / 1000.0);
      continue;
    }
    try {
      const json m = json::parse(*message);
      if (m.at("step").get<std::size_t>() != step) throw std::runtime_error("it answered another step");
      if (m.at("stuck").get<bool>()) {
        ledger_->add_stuck(from, m.at("message").get<std::string>());
        if (lost.empty()) lost = fmt::format("rank {} is stuck in a backend call", from);
      } else {
        ledger_->add(from, m.at("outcome"));
      }
    } catch (const std::exception& e) {
      if (lost.empty()) lost = fmt::format("rank {} sent a result rank 0 cannot read ({})", from, e.what());
    }
  }
  if (!lost.empty()) lose_job(lost);
}

int RankSession::finish() {
  std::vector<uint8_t> code(1, 0);
  if (root()) code[0] = static_cast<uint8_t>(ledger_->finish(true));
  watchdog_.reset();
  if (handlers_installed_) {
    remove_stop_handlers();
    handlers_installed_ = false;
  }
  if (!world_.broadcast(code, 0, Clock::now() + kRankStartupWait)) return kExitCheckFailed;
  return code[0];
}

}  // namespace opcert
