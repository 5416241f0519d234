// Timing events for the torch backend, so `opcert bench` times torch the way it times any backend
// with events: on a CUDA device with LibTorch >= 2.4, c10::Event with timing (elapsedTime) on the
// current stream, which measures what the device spent; otherwise (the host, or an older LibTorch)
// a record waits for the queued work and reads the host clock, which is what wall-clock timing
// around a synchronize would measure.
#pragma once

#include <ATen/ATen.h>

#include <chrono>
#include <memory>

namespace opcert::torch_backend {

class TorchEvent {
 public:
  explicit TorchEvent(const at::Device& device);
  ~TorchEvent();
  TorchEvent(const TorchEvent&) = delete;
  TorchEvent& operator=(const TorchEvent&) = delete;

  /// Records the point after all work queued so far on the device's current stream.
  void record();
  /// Milliseconds from `start` to this event; waits for this one to complete.
  double elapsed_since(TorchEvent& start);

 private:
  struct DeviceEvent;
  at::Device device_;
  std::unique_ptr<DeviceEvent> device_event_;  // null where the host clock is used
  std::chrono::steady_clock::time_point host_time_{};
};

}  // namespace opcert::torch_backend
