#include "bench/sample_timer.h"

#include <chrono>

namespace opcert {

SampleTimer::SampleTimer(BackendHandle& backend, opcert_device device) : backend_(&backend), device_(device) {
  if (!backend.has_events()) return;
  start_ = backend.create_event(device);
  try {
    stop_ = backend.create_event(device);
  } catch (...) {
    backend.destroy_event(start_);
    throw;
  }
}

SampleTimer::~SampleTimer() {
  if (start_ != nullptr) backend_->destroy_event(start_);
  if (stop_ != nullptr) backend_->destroy_event(stop_);
}

double SampleTimer::time(const std::function<void()>& launch) {
  if (start_ != nullptr) {
    backend_->record_event(start_);
    launch();
    backend_->record_event(stop_);
    return backend_->elapsed_ms(start_, stop_) / 1e3;
  }
  const auto begin = std::chrono::steady_clock::now();
  launch();
  backend_->synchronize(device_);
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
}

}  // namespace opcert
