#include "run/lane_memory.h"

#include <algorithm>

#include "session/execution/memory_admission.h"

namespace opcert {
namespace {

constexpr uint64_t kHostShareNum = 3, kHostShareDen = 4;
constexpr uint64_t kDeviceShareNum = 4, kDeviceShareDen = 5;

}  // namespace

uint64_t host_gate_capacity(uint64_t host_available, uint64_t set_aside) {
  const uint64_t share = host_available / kHostShareDen * kHostShareNum;
  return share - std::min(set_aside, share);
}

const DeviceDescription* lane_device(const RunTarget& t, const Lane& lane) {
  const auto& devices = t.backend->devices();
  const std::size_t index = lane.device ? static_cast<std::size_t>(lane.device->index) : 0;
  return index < devices.size() ? &devices[index] : nullptr;
}

bool device_is_host(const DeviceDescription* d) { return d == nullptr || memory_is_host(*d); }

LaneMemory::LaneMemory(const std::vector<Lane>& lanes, const std::vector<RunTarget>& targets, uint64_t host_capacity)
    : host_(lanes.size() > 1 ? host_capacity : 0) {
  for (const Lane& lane : lanes) {
    const DeviceDescription* d = lane_device(targets[lane.target], lane);
    if (lanes.size() < 2 || device_is_host(d)) continue;
    const int index = lane.device ? lane.device->index : 0;
    const uint64_t capacity = d->memory_bytes / kDeviceShareDen * kDeviceShareNum;
    auto& gate = devices_[index];
    if (!gate || (capacity > 0 && capacity < gate->capacity())) gate = std::make_unique<MemoryGate>(capacity);
  }
}

MemoryGate* LaneMemory::device(const Lane& lane) {
  const auto it = devices_.find(lane.device ? lane.device->index : 0);
  return it == devices_.end() ? nullptr : it->second.get();
}

GroupHold::GroupHold(LaneMemory& memory, const Lane& lane, const CaseGroup& g, const std::function<bool()>& stop)
    : host_(&memory.host()), device_(memory.device(lane)), group_(&g) {
  if (!host_->acquire(g.host_bytes, stop)) return;
  if (device_ != nullptr && !device_->acquire(g.device_bytes, stop)) {
    host_->release(g.host_bytes);
    return;
  }
  held_ = true;
}

GroupHold::~GroupHold() {
  if (!held_) return;
  if (device_ != nullptr) device_->release(group_->device_bytes);
  host_->release(group_->host_bytes);
}

}  // namespace opcert
