// The deadline on a blocking host call (collectives/host_call_watchdog.h): a call still running at
// its deadline gets the expiry action (ncclCommAbort in the backend), which ends it; one that
// returns in time never does. Plain C++, a condition variable standing in for a blocked NCCL call.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>

#include "collectives/host_call_watchdog.h"

namespace opcert::cuda {
namespace {

using namespace std::chrono_literals;
using Clock = HostCallWatchdog::Clock;

// A call that blocks until "aborted", as an NCCL call waiting for a dead peer does until
// ncclCommAbort, or until `limit` passes (so that a broken watchdog fails the test, not hangs it).
struct BlockedCall {
  std::mutex mutex;
  std::condition_variable released;
  bool aborted = false;
  void abort() {
    {
      std::lock_guard lock(mutex);
      aborted = true;
    }
    released.notify_all();
  }
  bool run(std::chrono::milliseconds limit) {
    std::unique_lock lock(mutex);
    return released.wait_for(lock, limit, [this] { return aborted; });
  }
};

TEST(HostCallWatchdog, AbortsACallStillBlockedAtItsDeadline) {
  BlockedCall call;
  std::atomic<int> expiries = 0;
  HostCallWatchdog dog([&] {
    ++expiries;
    call.abort();
  });
  const auto started = Clock::now();
  bool ended_by_abort = false;
  {
    HostCallWatchdog::Armed armed(dog, started + 50ms);
    ended_by_abort = call.run(10s);
  }
  EXPECT_TRUE(ended_by_abort);
  EXPECT_TRUE(dog.fired());
  EXPECT_EQ(expiries, 1);
  EXPECT_GE(Clock::now() - started, 50ms);
  EXPECT_LT(Clock::now() - started, 5s);
}

TEST(HostCallWatchdog, LeavesACallThatReturnsInTimeAlone) {
  std::atomic<int> expiries = 0;
  HostCallWatchdog dog([&] { ++expiries; });
  for (int i = 0; i < 100; ++i) {
    HostCallWatchdog::Armed armed(dog, Clock::now() + 10s);
  }
  // Disarmed calls stay unfired past their deadlines.
  { HostCallWatchdog::Armed armed(dog, Clock::now() + 20ms); }
  std::this_thread::sleep_for(60ms);
  EXPECT_FALSE(dog.fired());
  EXPECT_EQ(expiries, 0);
}

TEST(HostCallWatchdog, EachArmedCallHasItsOwnDeadline) {
  BlockedCall first;
  std::atomic<int> expiries = 0;
  HostCallWatchdog dog([&] {
    ++expiries;
    first.abort();
  });
  {
    HostCallWatchdog::Armed armed(dog, Clock::now() + 20ms);
    EXPECT_TRUE(first.run(10s));
  }
  EXPECT_TRUE(dog.fired());
  // The next call starts unfired, and a late deadline does not fire early.
  {
    HostCallWatchdog::Armed armed(dog, Clock::now() + 10s);
    std::this_thread::sleep_for(40ms);
  }
  EXPECT_FALSE(dog.fired());
  EXPECT_EQ(expiries, 1);
}

TEST(HostCallWatchdog, ArmedEndsOnlyAfterAnExpiryUnderWay) {
  // The action is slow: the call's Armed must not end before it finished, so that the caller
  // never sees a half-aborted communicator.
  std::atomic<bool> action_done = false;
  HostCallWatchdog dog([&] {
    std::this_thread::sleep_for(100ms);
    action_done = true;
  });
  {
    HostCallWatchdog::Armed armed(dog, Clock::now() + 10ms);
    std::this_thread::sleep_for(30ms);  // the action has started
  }
  EXPECT_TRUE(action_done);
  EXPECT_TRUE(dog.fired());
}

}  // namespace
}  // namespace opcert::cuda
