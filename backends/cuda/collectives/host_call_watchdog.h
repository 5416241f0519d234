// A deadline for a host call that may block (an NCCL call on a blocking communicator, which can
// wait inside NCCL for a peer that died while it sets up a connection or finalizes): a thread that,
// when an armed call is still running at its deadline, runs the expiry action (ncclCommAbort, which
// makes the blocked call return), as torch.distributed's watchdog does. Plain C++ (no CUDA, no
// NCCL), so a unit test drives it without a GPU. Arming and disarming take an uncontended lock and
// wake nothing (they happen around every collective, inside timed loops); the thread looks at the
// armed deadline every kTick instead, so an expiry comes up to kTick late.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <optional>
#include <thread>

namespace opcert::cuda {

class HostCallWatchdog {
 public:
  using Clock = std::chrono::steady_clock;
  static constexpr std::chrono::milliseconds kTick{10};

  /// `on_expiry` runs on the watchdog's thread, at most once per armed call, never after that
  /// call's Armed ended. It must not wait for the call it ends, and the caller must not hold a lock
  /// it takes while an Armed ends.
  explicit HostCallWatchdog(std::function<void()> on_expiry);
  ~HostCallWatchdog();
  HostCallWatchdog(const HostCallWatchdog&) = delete;
  HostCallWatchdog& operator=(const HostCallWatchdog&) = delete;

  /// Arms for one call, until its Armed ends: after that the watchdog has either not fired or
  /// finished firing, and fired() says which.
  class Armed {
   public:
    Armed(HostCallWatchdog& dog, Clock::time_point deadline);
    ~Armed();
    Armed(const Armed&) = delete;
    Armed& operator=(const Armed&) = delete;

   private:
    HostCallWatchdog& dog_;
  };

  /// True when the expiry action ran for the last armed call.
  bool fired() const;

 private:
  void watch();

  std::function<void()> on_expiry_;
  mutable std::mutex mutex_;
  std::condition_variable changed_;  // firing_ cleared, or stopping_ set
  std::optional<Clock::time_point> deadline_;  // armed while set
  bool firing_ = false;
  bool fired_ = false;
  bool stopping_ = false;
  std::thread thread_;  // last: starts once the members above exist
};

}  // namespace opcert::cuda
