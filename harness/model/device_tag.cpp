#include "model/device_tag.h"

namespace opcert {

std::string device_label(const std::optional<DeviceTag>& device, const std::optional<int>& rank) {
  if (!device) return "";
  const std::string own = "device " + std::to_string(device->index);
  return rank ? "rank " + std::to_string(*rank) + " " + own : own;
}

}  // namespace opcert
