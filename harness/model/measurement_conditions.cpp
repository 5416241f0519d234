#include "model/measurement_conditions.h"

#include <algorithm>
#include <utility>

namespace opcert {
namespace {

constexpr std::pair<uint64_t, const char*> kReasonNames[] = {
    {clock_reason::kGpuIdle, "gpu_idle"},
    {clock_reason::kApplicationsClocksSetting, "applications_clocks_setting"},
    {clock_reason::kSwPowerCap, "sw_power_cap"},
    {clock_reason::kHwSlowdown, "hw_slowdown"},
    {clock_reason::kSyncBoost, "sync_boost"},
    {clock_reason::kSwThermalSlowdown, "sw_thermal_slowdown"},
    {clock_reason::kHwThermalSlowdown, "hw_thermal_slowdown"},
    {clock_reason::kHwPowerBrakeSlowdown, "hw_power_brake_slowdown"},
    {clock_reason::kDisplayClockSetting, "display_clock_setting"},
};

constexpr uint64_t kThrottling = clock_reason::kSwPowerCap | clock_reason::kHwSlowdown |
                                 clock_reason::kSwThermalSlowdown | clock_reason::kHwThermalSlowdown |
                                 clock_reason::kHwPowerBrakeSlowdown;
constexpr uint64_t kCapping =
    clock_reason::kApplicationsClocksSetting | clock_reason::kSyncBoost | clock_reason::kDisplayClockSetting;

void add_once(std::vector<std::string>& flags, const std::string& flag) {
  if (std::find(flags.begin(), flags.end(), flag) == flags.end()) flags.push_back(flag);
}

}  // namespace

std::vector<std::string> clock_reason_names(uint64_t bits) {
  std::vector<std::string> names;
  for (int bit = 0; bit < 64; ++bit) {
    const uint64_t mask = uint64_t{1} << bit;
    if ((bits & mask) == 0) continue;
    const auto* known = std::find_if(std::begin(kReasonNames), std::end(kReasonNames),
                                     [&](const auto& entry) { return entry.first == mask; });
    names.push_back(known != std::end(kReasonNames) ? known->second : "bit" + std::to_string(bit));
  }
  return names;
}

std::vector<std::string> condition_flags(const GpuReading& reading) {
  std::vector<std::string> flags;
  if (!reading.clock_reasons) return flags;
  if ((*reading.clock_reasons & kThrottling) != 0) flags.push_back("throttled");
  if ((*reading.clock_reasons & kCapping) != 0) flags.push_back("clock-capped");
  return flags;
}

std::vector<std::string> condition_flags(const std::vector<SamplingConditions>& samplings) {
  std::vector<std::string> flags;
  for (const auto& s : samplings)
    for (const auto* reading : {&s.start, &s.end})
      if (*reading)
        for (const auto& f : condition_flags(**reading)) add_once(flags, f);
  std::stable_partition(flags.begin(), flags.end(), [](const std::string& f) { return f == "throttled"; });
  return flags;
}

}  // namespace opcert
