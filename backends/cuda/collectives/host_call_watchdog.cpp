#include "collectives/host_call_watchdog.h"

#include <utility>

namespace opcert::cuda {

HostCallWatchdog::HostCallWatchdog(std::function<void()> on_expiry)
    : on_expiry_(std::move(on_expiry)), thread_([this] { watch(); }) {}

HostCallWatchdog::~HostCallWatchdog() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  changed_.notify_all();
  thread_.join();
}

HostCallWatchdog::Armed::Armed(HostCallWatchdog& dog, Clock::time_point deadline) : dog_(dog) {
  std::lock_guard lock(dog_.mutex_);
  dog_.deadline_ = deadline;
  dog_.fired_ = false;
}

HostCallWatchdog::Armed::~Armed() {
  std::unique_lock lock(dog_.mutex_);
  // An expiry action under way finishes first: the caller then sees the communicator aborted.
  dog_.changed_.wait(lock, [this] { return !dog_.firing_; });
  dog_.deadline_.reset();
}

bool HostCallWatchdog::fired() const {
  std::lock_guard lock(mutex_);
  return fired_;
}

void HostCallWatchdog::watch() {
  std::unique_lock lock(mutex_);
  for (;;) {
    changed_.wait_for(lock, kTick, [this] { return stopping_; });
    if (stopping_) return;
    if (!deadline_ || fired_ || Clock::now() < *deadline_) continue;
    // Fires without the lock, so that a call ending meanwhile is not held up before its Armed
    // ends; that destructor then waits for firing_ to clear.
    firing_ = true;
    lock.unlock();
    on_expiry_();
    lock.lock();
    firing_ = false;
    fired_ = true;
    changed_.notify_all();
  }
}

}  // namespace opcert::cuda
