// Times launches of an op: on the device with the backend's events when it has them (what the
// device spent), else wall time around each launch and a synchronize.
//
// A launch timed alone (time()) starts from an idle device: the start event is reached at once and
// the op's kernels only once the host has issued them, so the figure carries the host's time to
// issue the call (15-20 us a torch call on the H200's host, varying with the core it runs on).
// queue() and collect() time launches queued back to back instead, an event between each, none
// waited for while they are queued: while the host keeps ahead of the device, each launch starts
// as the previous one ends and the figure is the device's own (docs/PERFORMANCE.md, "How a launch
// is timed").
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <string>
#include <vector>

#include "loader/backend_handle.h"

namespace opcert {

class SampleTimer {
 public:
  /// Uses events when backend.has_events() and creating them succeeds; throws BackendError only
  /// when a backend that offers events fails to create them.
  SampleTimer(BackendHandle& backend, opcert_device device);
  ~SampleTimer();
  SampleTimer(const SampleTimer&) = delete;
  SampleTimer& operator=(const SampleTimer&) = delete;

  /// Seconds `launch` took alone: between events recorded before and after it, or wall time until
  /// the device is idle again. Drops (after waiting for) any group still queued first. Throws what
  /// `launch` or the backend throws.
  double time(const std::function<void()>& launch);

  /// Queues `count` launches back to back, an event before the first and after each, and returns
  /// without waiting (with events; without, each launch is timed alone as by time()). Queue the
  /// next group before collecting this one, so that the device runs on while the host reads.
  /// Throws what `launch` or the backend throws; the group is then dropped.
  void queue(const std::function<void()>& launch, int64_t count);
  /// One queued group, done: each launch's seconds, in order, and the host's wall time to issue
  /// the group (its launches and events). Where issuing took about as long as the device took to
  /// run it, the device waited on the host: the figure is the host's rate of issue (host-bound).
  struct Collected {
    std::vector<double> seconds;
    double issue_s = 0.0;
  };
  /// The oldest queued group, once its last launch is done. Throws std::logic_error when nothing
  /// is queued.
  Collected collect();
  /// Waits for every queued group and drops it (a sampling that stopped, or failed).
  void drop_queued() noexcept;

  /// "events" or "wall", as recorded in the report.
  std::string method() const { return events_ ? "events" : "wall"; }

 private:
  struct Group {
    std::vector<opcert_event*> events;  // count + 1 with events
    std::vector<double> seconds;        // without events: each launch's wall time
    double issue_s = 0.0;               // the host's wall time in queue()
  };
  opcert_event* take_event();
  void give_back(Group& group) noexcept;

  BackendHandle* backend_;
  opcert_device device_;
  bool events_ = false;
  std::vector<opcert_event*> spare_;  // created events not in a queued group
  std::deque<Group> groups_;
};

}  // namespace opcert
