// Memory that the lanes of a run hold at once, on the host or on one device: workers side by side
// must not make a case too big (SKIPPED) or out of memory that one worker at a time would run.
// A case waits until what the running cases reserved leaves room for its footprint, first come
// first served (a big case is not starved by small ones behind it); a case bigger than the whole
// budget runs when nothing else holds any, and its worker's own admission judges it as alone
// (session/execution/memory_admission.h).
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <set>

namespace opcert {

class MemoryGate {
 public:
  /// `capacity` in bytes; 0 turns the gate off (every acquire passes at once).
  explicit MemoryGate(uint64_t capacity) : capacity_(capacity) {}
  MemoryGate(const MemoryGate&) = delete;
  MemoryGate& operator=(const MemoryGate&) = delete;

  /// Blocks until `bytes` fit beside what is held (or nothing is held), in the order the calls
  /// came; then holds them. False, holding nothing, when `stop` turns true while it waits.
  bool acquire(uint64_t bytes, const std::function<bool()>& stop);
  /// Gives back what an acquire that returned true holds.
  void release(uint64_t bytes);

  uint64_t capacity() const { return capacity_; }
  /// How many acquire calls are waiting for their turn or for room now.
  uint64_t waiting();

 private:
  void advance();  // the next ticket's turn (under the lock)

  const uint64_t capacity_;
  std::mutex mutex_;
  std::condition_variable changed_;
  uint64_t held_ = 0;
  uint64_t next_ticket_ = 0;  // first come, first served
  uint64_t serving_ = 0;
  std::set<uint64_t> abandoned_;  // tickets whose caller stopped waiting before its turn
};

}  // namespace opcert
