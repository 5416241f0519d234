// The memory gates of one run's lanes (run/memory_gate.h): the host's, and one per device (by
// index: a peer's device 0 and a backend's are the same GPU), and a case's hold on them while a
// lane runs its jobs. Of what the host has available and of a device's memory, the cases running
// at once may reserve a share: the rest is for what no footprint counts (the workers themselves, a
// device's contexts and libraries, an allocator's cache, a case a worker still holds between two
// of its cases, the run's shared inputs).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <vector>

#include "run/case_queue.h"
#include "run/lane.h"
#include "run/memory_gate.h"
#include "session/planning/targets.h"

namespace opcert {

/// The share of the host's available memory the running cases may reserve, less `set_aside`.
uint64_t host_gate_capacity(uint64_t host_available, uint64_t set_aside);

/// The device a lane runs on (its first without --devices), or null when the backend lists none.
const DeviceDescription* lane_device(const RunTarget& t, const Lane& lane);

/// Whether a device's memory is the host's (the CPU backend's partitions), or unknown.
bool device_is_host(const DeviceDescription* d);

class LaneMemory {
 public:
  /// Gates for `lanes` side by side: the host's of `host_capacity` bytes, each device's of its
  /// share of its memory. One lane alone is gated by nothing (its worker's own admission judges).
  LaneMemory(const std::vector<Lane>& lanes, const std::vector<RunTarget>& targets, uint64_t host_capacity);
  MemoryGate& host() { return host_; }
  /// The gate of the lane's device, or null where its memory is the host's.
  MemoryGate* device(const Lane& lane);

 private:
  MemoryGate host_;
  std::map<int, std::unique_ptr<MemoryGate>> devices_;
};

/// A case's memory, held on the host's gate and its lane's device's while one lane runs its jobs.
class GroupHold {
 public:
  /// Waits for room; held() is false when `stop` ended the wait.
  GroupHold(LaneMemory& memory, const Lane& lane, const CaseGroup& g, const std::function<bool()>& stop);
  ~GroupHold();
  GroupHold(const GroupHold&) = delete;
  GroupHold& operator=(const GroupHold&) = delete;
  bool held() const { return held_; }

 private:
  MemoryGate* host_;
  MemoryGate* device_;
  const CaseGroup* group_;
  bool held_ = false;
};

}  // namespace opcert
