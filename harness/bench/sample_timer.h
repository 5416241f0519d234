// Times one launch of an op: on the device with the backend's events when it has them (what the
// device spent, without host overhead), else wall time around the launch and a synchronize.
#pragma once

#include <functional>
#include <string>

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

  /// Seconds `launch` took: between events recorded before and after it, or wall time until the
  /// device is idle again. Throws what `launch` or the backend throws.
  double time(const std::function<void()>& launch);

  /// "events" or "wall", as recorded in the report.
  std::string method() const { return start_ != nullptr ? "events" : "wall"; }

 private:
  BackendHandle* backend_;
  opcert_device device_;
  opcert_event* start_ = nullptr;
  opcert_event* stop_ = nullptr;
};

}  // namespace opcert
