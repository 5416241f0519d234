#include "session/planning/device_choice.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>

#include "model/input_error.h"

namespace opcert {

DeviceMode parse_device_mode(const std::string& text) {
  if (text == "each") return DeviceMode::kEach;
  if (text == "spread") return DeviceMode::kSpread;
  throw InputError(fmt::format("--device-mode '{}': give 'spread' (the devices share the cases) or 'each' (every "
                               "device runs every case)",
                               text));
}

const char* device_mode_name(DeviceMode mode) { return mode == DeviceMode::kSpread ? "spread" : "each"; }

DeviceChoice parse_device_choice(const std::string& text) {
  DeviceChoice choice;
  if (text == "all") {
    choice.all = true;
    return choice;
  }
  std::size_t start = 0;
  for (;;) {
    const std::size_t comma = text.find(',', start);
    const std::string item = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    int index = -1;
    const auto [end, error] = std::from_chars(item.data(), item.data() + item.size(), index);
    if (item.empty() || error != std::errc() || end != item.data() + item.size() || index < 0)
      throw InputError(fmt::format("--devices '{}': '{}' is not a device index; give 'all' or indices such as 0,2 "
                                   "(`opcert list` shows each backend's devices)",
                                   text, item));
    choice.indices.push_back(index);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  std::sort(choice.indices.begin(), choice.indices.end());
  choice.indices.erase(std::unique(choice.indices.begin(), choice.indices.end()), choice.indices.end());
  return choice;
}

std::vector<int> resolve_devices(const DeviceChoice& choice, const std::string& backend, std::size_t count) {
  if (count == 0)
    throw InputError(fmt::format("--devices: backend '{}' lists no devices; run it without --devices", backend));
  if (choice.all) {
    std::vector<int> every(count);
    for (std::size_t i = 0; i < count; ++i) every[i] = static_cast<int>(i);
    return every;
  }
  for (const int index : choice.indices)
    if (static_cast<std::size_t>(index) >= count)
      throw InputError(fmt::format("--devices: backend '{}' has no device {}: it has {} (0 to {}); see `opcert list`",
                                   backend, index, count, count - 1));
  return choice.indices;
}

std::vector<int> node_share(const std::vector<int>& devices, int local_rank, int local_size) {
  std::vector<int> share;
  if (local_size < 1 || local_rank < 0) return share;
  for (std::size_t i = static_cast<std::size_t>(local_rank); i < devices.size(); i += static_cast<std::size_t>(local_size))
    share.push_back(devices[i]);
  return share;
}

DeviceTag device_tag_of(const BackendHandle& backend, int index) {
  const auto& d = backend.devices().at(static_cast<std::size_t>(index));
  return DeviceTag{index, d.name, this_host_name(), d.uuid, d.pci_bus_id};
}

}  // namespace opcert
