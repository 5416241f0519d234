// The conditions a benchmark was measured under: the GPU's clocks, power draw, temperature and the
// reasons its clocks were held down, read (NVML) just before a benchmark's first sample and just
// after its last. A figure taken while the GPU was power-capped or thermally throttled is slower
// than the same kernel at full clocks; the record says so instead of leaving the reader to guess.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace opcert {

/// NVML's clock event ("throttle") reason bits, as nvml.h defines them; part of NVML's stable ABI.
namespace clock_reason {
inline constexpr uint64_t kGpuIdle = 0x1;
inline constexpr uint64_t kApplicationsClocksSetting = 0x2;
inline constexpr uint64_t kSwPowerCap = 0x4;
inline constexpr uint64_t kHwSlowdown = 0x8;
inline constexpr uint64_t kSyncBoost = 0x10;
inline constexpr uint64_t kSwThermalSlowdown = 0x20;
inline constexpr uint64_t kHwThermalSlowdown = 0x40;
inline constexpr uint64_t kHwPowerBrakeSlowdown = 0x80;
inline constexpr uint64_t kDisplayClockSetting = 0x100;
}  // namespace clock_reason

/// One reading of the GPU. A field NVML could not give stays empty.
struct GpuReading {
  std::optional<uint32_t> sm_clock_mhz;
  std::optional<uint32_t> memory_clock_mhz;
  std::optional<double> power_w;
  std::optional<uint32_t> temperature_c;
  std::optional<uint64_t> clock_reasons;  ///< clock_reason bits in force at the reading
};

/// The readings around one sampling (one repetition) of a benchmark.
struct SamplingConditions {
  std::optional<GpuReading> start;  ///< just before the first sample (after the warm-up)
  std::optional<GpuReading> end;    ///< just after the last sample
};

/// Names of the reasons in `bits`, in bit order ("sw_power_cap", "hw_thermal_slowdown", ...);
/// unknown bits are named "bit<N>".
std::vector<std::string> clock_reason_names(uint64_t bits);

/// What a reading says about the speed of the samples next to it: "throttled" (power cap, thermal
/// or hardware slowdown, power brake: the clocks were pulled below what the load asked for) and
/// "clock-capped" (application clocks, sync boost or display clock setting: someone set them
/// lower). Idle is neither: a reading after the last sample may see the GPU going idle.
std::vector<std::string> condition_flags(const GpuReading& reading);

/// The flags of every reading of every sampling, without repeats, "throttled" first.
std::vector<std::string> condition_flags(const std::vector<SamplingConditions>& samplings);

}  // namespace opcert
