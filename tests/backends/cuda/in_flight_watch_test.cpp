// The bounded wait behind every wait on the CUDA backend's stream once a collective was queued
// (collectives/in_flight_watch.h): plain C++, driven here with a scripted stream and communicator.
#include <gtest/gtest.h>
#include <opcert/sdk/error.h>

#include "collectives/in_flight_watch.h"

namespace opcert::cuda {
namespace {

using Progress = InFlightWatch::Progress;

// A communicator that counts what the watch asks of it; `fails` makes its poll report an error.
class ScriptedComm final : public InFlightWatch::Watched {
 public:
  void poll() override {
    ++polls;
    if (fails) throw sdk::Error(OPCERT_ERROR_DEVICE, "ncclAllReduce failed: remote process exited");
  }
  void abort() override { ++aborts; }
  std::string late_message() const override { return "all_reduce of 2 element(s) per rank did not complete"; }
  int polls = 0;
  int aborts = 0;
  bool fails = false;
};

// A stream that is busy for `busy` polls, then done.
struct ScriptedStream {
  int busy = 0;
  int queries = 0;
  int blocks = 0;
  std::function<Progress()> query() {
    return [this] { return ++queries > busy ? Progress::kDone : Progress::kNotReady; };
  }
  std::function<void()> block() {
    return [this] { ++blocks; };
  }
};

InFlightWatch::Clock::time_point in_seconds(double s) {
  return InFlightWatch::Clock::now() +
         std::chrono::duration_cast<InFlightWatch::Clock::duration>(std::chrono::duration<double>(s));
}

TEST(InFlightWatch, WithNothingQueuedTheWaitIsThePlainBlockingOne) {
  InFlightWatch watch;
  ScriptedStream stream{.busy = 5};
  watch.wait(stream.query(), stream.block(), true);
  EXPECT_EQ(stream.blocks, 1);
  EXPECT_EQ(stream.queries, 0);
}

TEST(InFlightWatch, AQueuedCollectiveIsPolledUntilTheStreamDrainsThenDisarmed) {
  InFlightWatch watch;
  ScriptedComm comm;
  watch.arm(comm, in_seconds(60));
  ScriptedStream stream{.busy = 3};
  watch.wait(stream.query(), stream.block(), true);
  EXPECT_EQ(stream.blocks, 0);
  EXPECT_EQ(stream.queries, 4);
  EXPECT_EQ(comm.polls, 3);  // its asynchronous error watched while the stream was busy
  EXPECT_EQ(comm.aborts, 0);
  EXPECT_FALSE(watch.armed());
}

TEST(InFlightWatch, AnEventsCompletionLeavesTheCollectivesArmed) {
  InFlightWatch watch;
  ScriptedComm comm;
  watch.arm(comm, in_seconds(60));
  ScriptedStream event{.busy = 1};
  watch.wait(event.query(), event.block(), false);
  EXPECT_TRUE(watch.armed());  // work queued after the event may still be in flight
}

TEST(InFlightWatch, ADeadlinePassedAbortsTheCommunicatorAndTimesOut) {
  InFlightWatch watch;
  ScriptedComm comm;
  watch.arm(comm, in_seconds(0.05));
  ScriptedStream stuck{.busy = 1 << 30};
  try {
    watch.wait(stuck.query(), stuck.block(), true);
    FAIL() << "a stream that never drains must time out";
  } catch (const sdk::Error& e) {
    EXPECT_EQ(e.code(), OPCERT_ERROR_TIMEOUT);
    EXPECT_NE(std::string(e.what()).find("all_reduce of 2 element(s)"), std::string::npos) << e.what();
  }
  EXPECT_EQ(comm.aborts, 1);
  EXPECT_FALSE(watch.armed());
}

TEST(InFlightWatch, TheLatestDeadlineBoundsTheWait) {
  InFlightWatch watch;
  ScriptedComm comm;
  watch.arm(comm, in_seconds(-1));  // the first collective's deadline has passed ...
  watch.arm(comm, in_seconds(60));  // ... but a later one on the same communicator has not
  ScriptedStream stream{.busy = 2};
  EXPECT_NO_THROW(watch.wait(stream.query(), stream.block(), true));
  EXPECT_EQ(comm.aborts, 0);
}

TEST(InFlightWatch, ACommunicatorsErrorEndsTheWait) {
  InFlightWatch watch;
  ScriptedComm comm;
  comm.fails = true;
  watch.arm(comm, in_seconds(60));
  ScriptedStream stuck{.busy = 1 << 30};
  try {
    watch.wait(stuck.query(), stuck.block(), true);
    FAIL() << "the communicator's error must end the wait";
  } catch (const sdk::Error& e) {
    EXPECT_EQ(e.code(), OPCERT_ERROR_DEVICE);
  }
}

TEST(InFlightWatch, ADeviceErrorAbortsEveryCommunicatorInFlight) {
  InFlightWatch watch;
  ScriptedComm a, b;
  watch.arm(a, in_seconds(60));
  watch.arm(b, in_seconds(60));
  const auto broken = []() -> Progress { throw sdk::Error(OPCERT_ERROR_DEVICE, "an illegal memory access"); };
  EXPECT_THROW(watch.wait(broken, [] {}, true), sdk::Error);
  EXPECT_EQ(a.aborts, 1);
  EXPECT_EQ(b.aborts, 1);
  EXPECT_FALSE(watch.armed());
}

TEST(InFlightWatch, AForgottenCommunicatorIsNoLongerPolled) {
  InFlightWatch watch;
  ScriptedComm comm;
  watch.arm(comm, in_seconds(-1));
  watch.forget(comm);
  EXPECT_FALSE(watch.armed());
  ScriptedStream stream{.busy = 2};
  EXPECT_NO_THROW(watch.wait(stream.query(), stream.block(), true));
  EXPECT_EQ(stream.blocks, 1);
  EXPECT_EQ(comm.polls, 0);
}

}  // namespace
}  // namespace opcert::cuda
