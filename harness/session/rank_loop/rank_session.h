// The rank loop shared by `opcert run` and `opcert bench` on collectives (DESIGN.md section 8):
// the ranks agree on the job list, rank 0 sets up its ledger (the reports), each step of the job
// runs under a deadline watched by the rank's watchdog, communicators are rebuilt after a failure,
// each rank's outcome of a step travels to rank 0, and a dead or hung rank ends the job with the
// ledger written. Nothing waits past the step's timeout plus a grace.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "loader/backend_handle.h"
#include "model/status.h"
#include "ranks/world.h"
#include "session/rank_loop/rank_watchdog.h"

namespace opcert {

/// How long past the timeout a rank waits for a stuck peer or backend call before it gives up
/// on it: half the timeout, between 2 and 30 seconds.
std::chrono::milliseconds collective_grace(std::chrono::milliseconds timeout);

/// Rank 0's keeper of the job's outcome. The session calls it from the rank loop and, when the
/// job is lost, from the watchdog's thread: implementations lock.
class RankLedger {
 public:
  virtual ~RankLedger() = default;
  /// The step every later outcome belongs to, until the next call.
  virtual void begin_step(std::size_t step) = 0;
  /// Rank `from`'s outcome of the current step, as its step body made it. Throws std::exception
  /// when it cannot be read.
  virtual void add(int from, const nlohmann::json& outcome) = 0;
  /// Rank `from` is stuck in a backend call: only its watchdog's message came.
  virtual void add_stuck(int from, const std::string& message) = 0;
  /// Every rank's outcome of the current step is in.
  virtual void end_step() {}
  /// The job is lost: the ranks with no outcome yet for the current step get `status` and
  /// `now_message`, every later step `later_message` (ERROR).
  virtual void record_lost(Status status, const std::string& now_message, const std::string& later_message) = 0;
  /// Writes the outputs (once: later calls return the first exit code) and returns the exit code:
  /// `forced` when given, else from the outcomes.
  virtual int finish(bool complete, std::optional<int> forced = std::nullopt) = 0;
};

/// Calls run(backend_index, first, last) for each run of consecutive jobs on one backend: each
/// such span shares one communicator.
template <class Jobs, class Run>
void for_each_backend_span(const Jobs& jobs, Run run) {
  for (std::size_t first = 0; first < jobs.size();) {
    std::size_t last = first;
    while (last < jobs.size() && jobs[last].backend_index == jobs[first].backend_index) ++last;
    run(jobs[first].backend_index, first, last);
    first = last;
  }
}

/// One rank's communicator on one backend, rebuilt after a failure.
struct Communicator {
  opcert_comm* comm = nullptr;
  std::string error;  // why there is none
};

class RankSession {
 public:
  using Clock = std::chrono::steady_clock;

  /// `timeout`: the budget of one step (--timeout).
  RankSession(World& world, std::chrono::milliseconds timeout);
  ~RankSession();
  RankSession(const RankSession&) = delete;
  RankSession& operator=(const RankSession&) = delete;

  /// Every rank: checks that the ranks run the same steps (`job_list`: every step's name, in
  /// order; the ranks compare a hash of it), lets rank 0 make its
  /// ledger (what `make_ledger` throws is rethrown on every rank alike: InputError for bad input),
  /// says on stderr how many ranks run, and starts the watchdog.
  void start(const std::string& job_list, const std::function<std::unique_ptr<RankLedger>()>& make_ledger);

  /// Starts step `step` (watchdog armed) and returns its start; end_step() disarms.
  Clock::time_point begin_step(std::size_t step);
  void end_step();

  /// The minimum of `mine` over the ranks; a rank missing the step's deadline loses the job
  /// (`missed` says what it did not reach).
  int64_t agree(int64_t mine, Clock::time_point start, const std::string& missed);

  /// Makes sure every rank has a communicator on `backend`: when any rank lacks one, all rebuild
  /// it from rank 0's unique id. After it, comm.comm may still be null (comm.error says why).
  void ensure_communicator(BackendHandle& backend, opcert_device device, Communicator& comm, Clock::time_point start);
  /// Aborts and destroys a communicator after a failed call, so that the other ranks fail too.
  static void drop_communicator(BackendHandle& backend, Communicator& comm, const std::string& why);

  /// Sends this rank's outcome of the step to rank 0; rank 0 gives every rank's to its ledger,
  /// and loses the job when a rank sent none in time.
  void collect(std::size_t step, const nlohmann::json& outcome, Clock::time_point start);

  /// Every rank, at the end: rank 0 finishes its ledger; returns its exit code on every rank.
  int finish();

  [[noreturn]] void lose_job(const std::string& why);

  World& world() { return world_; }
  bool root() const { return world_.rank() == 0; }
  RankLedger* ledger() { return ledger_.get(); }  // rank 0 only

 private:
  void on_overrun(std::size_t step);
  void on_stop();
  void agree_on_setup(std::exception_ptr setup_error);
  // The waits of a step end at step_deadline; a backend call still running half a grace later
  // is stuck (the watchdog); rank 0 waits for the ranks' outcomes until collect_deadline.
  Clock::time_point step_deadline(Clock::time_point start) const { return start + timeout_ + grace_; }
  Clock::time_point stuck_deadline(Clock::time_point start) const { return start + timeout_ + grace_ + grace_ / 2; }
  Clock::time_point collect_deadline(Clock::time_point start) const { return start + timeout_ + 2 * grace_; }

  World& world_;
  std::chrono::milliseconds timeout_;
  std::chrono::milliseconds grace_;
  std::unique_ptr<RankLedger> ledger_;  // rank 0 only
  std::unique_ptr<RankWatchdog> watchdog_;
  bool handlers_installed_ = false;
};

}  // namespace opcert
