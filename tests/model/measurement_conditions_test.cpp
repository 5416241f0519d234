// model/measurement_conditions.h: NVML's clock event reasons by name, and which of them make a
// sample throttled or clock-capped.
#include "model/measurement_conditions.h"

#include <gtest/gtest.h>

namespace opcert {
namespace {

GpuReading with_reasons(uint64_t bits) {
  GpuReading r;
  r.clock_reasons = bits;
  return r;
}

TEST(ClockReasons, EveryKnownBitHasItsNameAnUnknownOneItsNumber) {
  EXPECT_TRUE(clock_reason_names(0).empty());
  EXPECT_EQ(clock_reason_names(clock_reason::kGpuIdle | clock_reason::kSwPowerCap),
            (std::vector<std::string>{"gpu_idle", "sw_power_cap"}));
  EXPECT_EQ(clock_reason_names(0x1FF).size(), 9u);
  EXPECT_EQ(clock_reason_names(uint64_t{1} << 40), (std::vector<std::string>{"bit40"}));
}

TEST(ConditionFlags, PowerThermalAndHardwareReasonsThrottleSettingsCapIdleIsNeither) {
  using V = std::vector<std::string>;
  EXPECT_EQ(condition_flags(with_reasons(0)), V{});
  EXPECT_EQ(condition_flags(with_reasons(clock_reason::kGpuIdle)), V{});
  EXPECT_EQ(condition_flags(GpuReading{}), V{});  // NVML gave no reasons
  for (uint64_t throttling : {clock_reason::kSwPowerCap, clock_reason::kHwSlowdown, clock_reason::kSwThermalSlowdown,
                              clock_reason::kHwThermalSlowdown, clock_reason::kHwPowerBrakeSlowdown})
    EXPECT_EQ(condition_flags(with_reasons(throttling)), V{"throttled"}) << throttling;
  for (uint64_t capping : {clock_reason::kApplicationsClocksSetting, clock_reason::kSyncBoost,
                           clock_reason::kDisplayClockSetting})
    EXPECT_EQ(condition_flags(with_reasons(capping)), V{"clock-capped"}) << capping;
}

TEST(ConditionFlags, OverSamplingsEachFlagOnceThrottledFirst) {
  std::vector<SamplingConditions> samplings(2);
  samplings[0].start = with_reasons(clock_reason::kApplicationsClocksSetting);
  samplings[0].end = with_reasons(clock_reason::kGpuIdle);
  samplings[1].end = with_reasons(clock_reason::kSwThermalSlowdown | clock_reason::kSyncBoost);
  EXPECT_EQ(condition_flags(samplings), (std::vector<std::string>{"throttled", "clock-capped"}));
  EXPECT_TRUE(condition_flags(std::vector<SamplingConditions>(3)).empty());
}

}  // namespace
}  // namespace opcert
