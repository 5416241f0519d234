// bench/bench_lanes.h: the unit a lane takes is a case (on one device, once placed), never a
// single (implementation, case) job, so that a row and its peer's row share a device.
#include <gtest/gtest.h>

#include "bench/bench_lanes.h"

namespace opcert {
namespace {

BenchJob job_of(const Case& c, std::optional<int> device = std::nullopt) {
  BenchJob j;
  j.test_case = &c;
  if (device) j.device = DeviceTag{*device, "d", "h"};
  return j;
}

TEST(BenchUnits, ACaseAndItsPeerAreOneUnit) {
  const Case a{.id = "a"}, b{.id = "b"};
  const auto units = bench_units({job_of(a), job_of(a), job_of(a), job_of(b), job_of(b)});
  ASSERT_EQ(units.size(), 2u);
  EXPECT_EQ(units[0].first, 0u);
  EXPECT_EQ(units[0].end, 3u);
  EXPECT_EQ(units[1].first, 3u);
  EXPECT_EQ(units[1].end, 5u);
  EXPECT_FALSE(units[0].device) << "unplaced (spread): any lane takes it";
}

TEST(BenchUnits, PlacedJobsAreAUnitPerCaseAndDevice) {
  const Case a{.id = "a"};
  const auto units = bench_units({job_of(a, 0), job_of(a, 0), job_of(a, 1), job_of(a, 1)});
  ASSERT_EQ(units.size(), 2u);
  EXPECT_EQ(units[0].device, 0);
  EXPECT_EQ(units[0].end, 2u);
  EXPECT_EQ(units[1].device, 1);
  EXPECT_EQ(units[1].first, 2u);
}

}  // namespace
}  // namespace opcert
