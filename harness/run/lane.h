// One worker's place in a run (run/worker_lanes.h): which backend, on which device, and which of
// that backend's workers there it is.
#pragma once

#include <cstddef>
#include <optional>

#include "model/device_tag.h"

namespace opcert {

/// One worker's place: a target (index into the run's targets) and its device, if chosen.
struct Lane {
  std::size_t target = 0;
  std::optional<DeviceTag> device;
  int slot = 0;  // which of the target's workers on this device (--workers): 0 the first
};

}  // namespace opcert
