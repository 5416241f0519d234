#include "collectives/in_flight_watch.h"

#include <opcert/sdk/error.h>

#include <algorithm>
#include <thread>

namespace opcert::cuda {

void PollPacer::pause() const {
  // A small collective, or NCCL's launch of one, completes in tens of microseconds: a sleep then
  // would be most of its time (a count of 100 yields, as before, ends long before and cost every
  // collective a 200 us sleep). Later polls leave the core to the peers.
  if (InFlightWatch::Clock::now() - started_ < kSpinFor) std::this_thread::yield();
  else std::this_thread::sleep_for(std::chrono::microseconds(200));
}

void InFlightWatch::arm(Watched& watched, Clock::time_point deadline) {
  std::lock_guard lock(mutex_);
  for (Entry& e : in_flight_)
    if (e.watched == &watched) {
      e.deadline = std::max(e.deadline, deadline);
      return;
    }
  in_flight_.push_back({&watched, deadline});
}

void InFlightWatch::forget(Watched& watched) {
  std::lock_guard lock(mutex_);
  std::erase_if(in_flight_, [&](const Entry& e) { return e.watched == &watched; });
}

bool InFlightWatch::armed() const {
  std::lock_guard lock(mutex_);
  return !in_flight_.empty();
}

std::vector<InFlightWatch::Entry> InFlightWatch::snapshot() const {
  std::lock_guard lock(mutex_);
  return in_flight_;
}

void InFlightWatch::time_out(const std::vector<Entry>& entries) {
  // Every communicator goes: a peer waiting on this rank must not wait on after it gave up.
  const Entry* latest = &entries.front();
  for (const Entry& e : entries) {
    e.watched->abort();
    if (e.deadline > latest->deadline) latest = &e;
  }
  const std::string message = latest->watched->late_message();
  {
    std::lock_guard lock(mutex_);
    in_flight_.clear();
  }
  throw sdk::Error(OPCERT_ERROR_TIMEOUT, message);
}

void InFlightWatch::wait(const std::function<Progress()>& query, const std::function<void()>& block,
                         bool drains_stream) {
  if (!armed()) {
    block();
    return;
  }
  const PollPacer pacer;
  for (;;) {
    Progress progress = Progress::kNotReady;
    try {
      progress = query();
    } catch (...) {
      // The device is in trouble: no peer may be left waiting on this rank.
      for (const Entry& e : snapshot()) e.watched->abort();
      std::lock_guard lock(mutex_);
      in_flight_.clear();
      throw;
    }
    if (progress == Progress::kDone) break;
    const std::vector<Entry> entries = snapshot();
    if (entries.empty()) {  // forgotten meanwhile: nothing bounds the wait any more
      block();
      return;
    }
    for (const Entry& e : entries) e.watched->poll();
    const auto latest = std::max_element(entries.begin(), entries.end(),
                                         [](const Entry& a, const Entry& b) { return a.deadline < b.deadline; });
    if (Clock::now() >= latest->deadline) time_out(entries);
    pacer.pause();
  }
  if (!drains_stream) return;
  std::lock_guard lock(mutex_);
  in_flight_.clear();
}

}  // namespace opcert::cuda
