#include "torch_events.h"

#include <c10/core/Event.h>
#include <c10/core/impl/VirtualGuardImpl.h>

#include "device_memory.h"
#include "torch_version.h"

namespace opcert::torch_backend {

#if OPCERT_TORCH_AT_LEAST(2, 4)
struct TorchEvent::DeviceEvent {
  explicit DeviceEvent(const at::Device& d) : event(d.type(), c10::EventFlag::BACKEND_DEFAULT) {}
  c10::Event event;  // BACKEND_DEFAULT: a CUDA event with timing enabled
};
#else
struct TorchEvent::DeviceEvent {};
#endif

TorchEvent::TorchEvent(const at::Device& device) : device_(device) {
#if OPCERT_TORCH_AT_LEAST(2, 4)
  if (device.is_cuda()) device_event_ = std::make_unique<DeviceEvent>(device);
#endif
}

TorchEvent::~TorchEvent() = default;

void TorchEvent::record() {
#if OPCERT_TORCH_AT_LEAST(2, 4)
  if (device_event_) {
    const c10::impl::VirtualGuardImpl guard(device_.type());
    device_event_->event.record(guard.getStream(device_));
    return;
  }
#endif
  if (device_.is_cuda()) {
    const c10::impl::VirtualGuardImpl guard(device_.type());
    guard.getStream(device_).synchronize();
  }
  host_time_ = std::chrono::steady_clock::now();
}

double TorchEvent::elapsed_since(TorchEvent& start) {
#if OPCERT_TORCH_AT_LEAST(2, 4)
  if (device_event_ && start.device_event_) {
    device_event_->event.synchronize();
    return start.device_event_->event.elapsedTime(device_event_->event);
  }
#endif
  return std::chrono::duration<double, std::milli>(host_time_ - start.host_time_).count();
}

}  // namespace opcert::torch_backend
