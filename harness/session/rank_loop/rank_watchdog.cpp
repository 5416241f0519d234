#include "session/rank_loop/rank_watchdog.h"

#include "session/job/stop_request.h"

namespace opcert {

RankWatchdog::RankWatchdog(std::function<void()> on_stop) : on_stop_(std::move(on_stop)) {
  thread_ = std::thread([this] { watch(); });
}

RankWatchdog::~RankWatchdog() {
  {
    const std::lock_guard lock(mutex_);
    quit_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

void RankWatchdog::arm(Deadline deadline, std::function<void()> on_overrun) {
  const std::lock_guard lock(mutex_);
  armed_ = true;
  deadline_ = deadline;
  on_overrun_ = std::move(on_overrun);
}

void RankWatchdog::disarm() {
  const std::lock_guard lock(mutex_);
  armed_ = false;
}

void RankWatchdog::watch() {
  // Polls: a signal handler can only set a flag, and 20 ms is nothing next to any timeout.
  std::unique_lock lock(mutex_);
  while (!quit_) {
    wake_.wait_for(lock, std::chrono::milliseconds(20));
    if (quit_) break;
    if (on_stop_ && stop_requested()) {
      lock.unlock();
      on_stop_();  // ends the process
      lock.lock();
    }
    if (armed_ && std::chrono::steady_clock::now() >= deadline_) {
      armed_ = false;
      auto action = on_overrun_;
      lock.unlock();
      action();  // ends the process
      lock.lock();
    }
  }
}

}  // namespace opcert
