// The last line of defence of a rank (DESIGN.md section 8): a thread that watches the rank's
// backend calls and its stop signal. A call still running past its deadline (the backend
// ignored the communicator's timeout) or a SIGINT/SIGTERM (on rank 0: the launcher ending the
// job because a rank died) runs the action given, which records what it can and ends the process.
#pragma once

#include <atomic>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>

#include "ranks/world.h"

namespace opcert {

class RankWatchdog {
 public:
  /// `on_stop` runs (on the watchdog's thread) when a stop signal arrived; null: signals are not watched.
  explicit RankWatchdog(std::function<void()> on_stop);
  ~RankWatchdog();
  RankWatchdog(const RankWatchdog&) = delete;
  RankWatchdog& operator=(const RankWatchdog&) = delete;

  /// Watches the calls from now until disarm(): past `deadline`, `on_overrun` runs.
  void arm(Deadline deadline, std::function<void()> on_overrun);
  void disarm();

 private:
  void watch();

  std::function<void()> on_stop_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool armed_ = false;
  bool quit_ = false;
  Deadline deadline_{};
  std::function<void()> on_overrun_;
  std::thread thread_;
};

}  // namespace opcert
