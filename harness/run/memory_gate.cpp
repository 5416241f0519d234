#include "run/memory_gate.h"

#include <chrono>

namespace opcert {

bool MemoryGate::acquire(uint64_t bytes, const std::function<bool()>& stop) {
  if (capacity_ == 0) return true;
  std::unique_lock lock(mutex_);
  const uint64_t ticket = next_ticket_++;
  const auto fits = [&] { return ticket == serving_ && (held_ == 0 || (held_ <= capacity_ && bytes <= capacity_ - held_)); };
  // A stop request comes from a signal handler, which cannot notify: look again now and then.
  while (!changed_.wait_for(lock, std::chrono::milliseconds(200), fits)) {
    if (stop && stop()) {
      // Our turn, now or when it comes, passes to the next in line.
      if (ticket == serving_) advance();
      else abandoned_.insert(ticket);
      return false;
    }
  }
  held_ += bytes;
  advance();
  return true;
}

void MemoryGate::advance() {
  ++serving_;
  while (abandoned_.erase(serving_) > 0) ++serving_;
  changed_.notify_all();
}

uint64_t MemoryGate::waiting() {
  const std::lock_guard lock(mutex_);
  return next_ticket_ - serving_ - abandoned_.size();
}

void MemoryGate::release(uint64_t bytes) {
  if (capacity_ == 0) return;
  {
    const std::lock_guard lock(mutex_);
    held_ -= bytes;
  }
  changed_.notify_all();
}

}  // namespace opcert
