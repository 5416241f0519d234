#include "bench/sample_timer.h"

#include <chrono>
#include <stdexcept>

namespace opcert {
namespace {

double wall_time(BackendHandle& backend, opcert_device device, const std::function<void()>& launch) {
  const auto begin = std::chrono::steady_clock::now();
  launch();
  backend.synchronize(device);
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
}

}  // namespace

SampleTimer::SampleTimer(BackendHandle& backend, opcert_device device) : backend_(&backend), device_(device) {
  if (!backend.has_events()) return;
  events_ = true;
  spare_.push_back(backend.create_event(device));
  try {
    spare_.push_back(backend.create_event(device));
  } catch (...) {
    backend.destroy_event(spare_.front());
    throw;
  }
}

SampleTimer::~SampleTimer() {
  drop_queued();
  for (opcert_event* e : spare_) backend_->destroy_event(e);
}

opcert_event* SampleTimer::take_event() {
  if (spare_.empty()) return backend_->create_event(device_);
  opcert_event* e = spare_.back();
  spare_.pop_back();
  return e;
}

void SampleTimer::give_back(Group& group) noexcept {
  spare_.insert(spare_.end(), group.events.begin(), group.events.end());
  group.events.clear();
}

double SampleTimer::time(const std::function<void()>& launch) {
  if (!events_) return wall_time(*backend_, device_, launch);
  drop_queued();  // alone: after nothing queued, and its group the only one collect() can return
  queue(launch, 1);
  return collect().seconds.front();
}

void SampleTimer::queue(const std::function<void()>& launch, int64_t count) {
  Group group;
  const auto begin = std::chrono::steady_clock::now();
  try {
    if (!events_) {
      for (int64_t i = 0; i < count; ++i) group.seconds.push_back(wall_time(*backend_, device_, launch));
    } else {
      group.events.reserve(static_cast<std::size_t>(count) + 1);
      for (int64_t i = 0; i <= count; ++i) group.events.push_back(take_event());
      backend_->record_event(group.events[0]);
      for (int64_t i = 1; i <= count; ++i) {
        launch();
        backend_->record_event(group.events[static_cast<std::size_t>(i)]);
      }
    }
  } catch (...) {
    give_back(group);
    throw;
  }
  group.issue_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
  groups_.push_back(std::move(group));
}

SampleTimer::Collected SampleTimer::collect() {
  if (groups_.empty()) throw std::logic_error("SampleTimer::collect: nothing queued");
  Group group = std::move(groups_.front());
  groups_.pop_front();
  Collected done{{}, group.issue_s};
  if (!events_) {
    done.seconds = std::move(group.seconds);
    return done;
  }
  try {
    for (std::size_t i = 1; i < group.events.size(); ++i)
      done.seconds.push_back(backend_->elapsed_ms(group.events[i - 1], group.events[i]) / 1e3);
  } catch (...) {
    give_back(group);
    throw;
  }
  give_back(group);
  return done;
}

void SampleTimer::drop_queued() noexcept {
  if (groups_.empty()) return;
  try {
    backend_->synchronize(device_);  // nothing freed or reused while a queued launch may still run
  } catch (...) {
    // A backend that fails here fails its next call too, where the error is reported.
  }
  for (Group& g : groups_) give_back(g);
  groups_.clear();
}

}  // namespace opcert
