#include "bench/roofline.h"

#include <algorithm>

namespace opcert {

const PlatformConfig* platform_for_device(const PlatformCatalog& catalog, const std::string& requested,
                                          const std::string& device_name) {
  if (!requested.empty()) return catalog.find(requested);
  for (const auto& p : catalog.all())
    if (!p.device.empty() && device_name.find(p.device) != std::string::npos) return &p;
  return nullptr;
}

std::optional<double> roofline_percent(const WorkModel& work, const PeakFigures& peaks, double seconds) {
  if (seconds <= 0) return std::nullopt;
  std::optional<double> compute_s, memory_s;
  if (work.flops > 0 && !work.compute_dtype.empty())
    if (auto it = peaks.tflops.find(work.compute_dtype); it != peaks.tflops.end())
      compute_s = work.flops / (it->second * 1e12);
  if (work.bytes > 0 && peaks.memory_gbps) memory_s = work.bytes / (*peaks.memory_gbps * 1e9);
  if (work.compute_bound ? !compute_s : !memory_s) return std::nullopt;
  const double bound_s = std::max(compute_s.value_or(0.0), memory_s.value_or(0.0));
  return 100.0 * bound_s / seconds;
}

}  // namespace opcert
