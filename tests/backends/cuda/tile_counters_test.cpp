// The two tile counters that persistent kernels on one stream take turns at
// (backends/cuda/tile_counters.h), with the kernels' side played on the host: each launch must find
// its counter at zero, whatever the launches before it took, stopped half-way or failed to start.
#include <gtest/gtest.h>

#include "tile_counters.h"

namespace opcert::cuda {
namespace {

/// What a persistent launch does with the counters (attention_ws_kernel.cuh): zero the next
/// launch's, take `taken` tiles from its own; returns what its own held when it started.
int run_launch(TileCounters& c, int taken) {
  const int at_start = *c.now();
  *c.next() = 0;
  *c.now() += taken;
  c.launched();
  return at_start;
}

TEST(TileCounters, LaunchesAlternateBetweenTheTwoInts) {
  int ints[2] = {0, 0};
  TileCounters c{ints};
  EXPECT_EQ(c.now(), &ints[0]);
  EXPECT_EQ(c.next(), &ints[1]);
  c.launched();
  EXPECT_EQ(c.now(), &ints[1]);
  EXPECT_EQ(c.next(), &ints[0]);
  c.launched();
  EXPECT_EQ(c.now(), &ints[0]);
}

TEST(TileCounters, EveryLaunchFindsItsCounterAtZero) {
  int ints[2] = {0, 0};
  TileCounters c{ints};
  for (int launch = 0; launch < 6; ++launch) EXPECT_EQ(run_launch(c, 100 + launch), 0) << "launch " << launch;
}

TEST(TileCounters, ALaunchStoppedHalfWayLeavesTheNextOneAClearCounter) {
  int ints[2] = {0, 0};
  TileCounters c{ints};
  EXPECT_EQ(run_launch(c, 40), 0);
  // Stopped after taking 7 tiles: its counter stays at 7, but it had zeroed the next one's first.
  *c.next() = 0;
  *c.now() += 7;
  c.launched();
  EXPECT_EQ(run_launch(c, 40), 0);
  EXPECT_EQ(run_launch(c, 40), 0);  // the stopped launch's counter, zeroed by the launch before
}

TEST(TileCounters, ALaunchThatFailedToStartDoesNotAdvanceThem) {
  int ints[2] = {0, 0};
  TileCounters c{ints};
  EXPECT_EQ(run_launch(c, 40), 0);
  int* const failed_on = c.now();  // this launch fails to start: nothing ran, launched() is not called
  EXPECT_EQ(c.now(), failed_on);
  EXPECT_EQ(run_launch(c, 40), 0);  // the next launch takes the same, untouched, counter
  EXPECT_EQ(run_launch(c, 40), 0);
}

}  // namespace
}  // namespace opcert::cuda
