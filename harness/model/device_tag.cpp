#include "model/device_tag.h"

#include <unistd.h>

namespace opcert {

std::string device_label(const std::optional<DeviceTag>& device, const std::optional<int>& rank) {
  if (!device) return "";
  const std::string own = "device " + std::to_string(device->index);
  return rank ? "rank " + std::to_string(*rank) + " " + own : own;
}

std::string device_identity_label(const std::optional<DeviceTag>& device, const std::optional<int>& rank) {
  if (!device) return "";
  return device_label(device, rank) + " (UUID " + identity_text(device->uuid) + ")";
}

std::string identity_text(const std::string& uuid_or_bus_id) {
  return uuid_or_bus_id.empty() ? "unknown" : uuid_or_bus_id;
}

std::string this_host_name() {
  char name[256] = {};
  if (::gethostname(name, sizeof name - 1) != 0) return "";
  return name;
}

}  // namespace opcert
