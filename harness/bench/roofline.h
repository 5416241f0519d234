// Percent of peak as a roofline: the time the op's flops and bytes need at the platform's peak
// rates (whichever resource limits) over the time it took. 100% is the hardware's limit.
#pragma once

#include <optional>
#include <string>

#include "opkit/work_model.h"
#include "loader/platform/platform_config.h"

namespace opcert {

/// The platform whose peaks apply to a device: the one named `requested` (--platform) when
/// given, else the first whose `device` the device's name contains (case-sensitive), else none.
const PlatformConfig* platform_for_device(const PlatformCatalog& catalog, const std::string& requested,
                                          const std::string& device_name);

/// 100 · max(flops / peak_flops, bytes / peak_bandwidth) / seconds, over the peaks known. Empty
/// when the figure that bounds the op is unknown (a compute-bound op without its dtype's TFLOP/s,
/// a memory-bound op without memory_gbps) or seconds is not positive.
std::optional<double> roofline_percent(const WorkModel& work, const PeakFigures& peaks, double seconds);

}  // namespace opcert
