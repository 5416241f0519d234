#include "bench/bench_lanes.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <thread>

#include "model/input_error.h"
#include "session/planning/device_choice.h"

namespace opcert {

std::vector<std::optional<int>> bench_lane_devices(const std::vector<RunTarget>& targets, const BenchSettings& s) {
  if (!s.devices) return {std::nullopt};
  std::vector<int> chosen;
  if (s.devices->all) {
    std::size_t common = targets.empty() ? 0 : targets.front().backend->devices().size();
    for (const RunTarget& t : targets) common = std::min(common, t.backend->devices().size());
    for (std::size_t i = 0; i < common; ++i) chosen.push_back(static_cast<int>(i));
  }
  // The selected backends first: a device none of them has is said of them, not of the peer.
  std::vector<RunTarget> in_order(targets);
  std::stable_partition(in_order.begin(), in_order.end(), [](const RunTarget& t) { return !t.peer; });
  for (const RunTarget& t : in_order) {
    const auto& devices = t.backend->devices();
    if (s.devices->all) {
      if (devices.empty()) (void)resolve_devices(*s.devices, t.backend->name(), 0);  // says it has none
      continue;
    }
    try {
      (void)resolve_devices(*s.devices, t.backend->name(), devices.size());
    } catch (const InputError& e) {
      if (!t.peer) throw;
      throw InputError(fmt::format("{} (the peer is timed on the device of the rows it is compared with: choose "
                                   "devices it has, another --peer, or --no-peer)",
                                   e.what()));
    }
    chosen = s.devices->indices;
  }
  return std::vector<std::optional<int>>(chosen.begin(), chosen.end());
}

std::vector<BenchJob> place_bench_jobs(std::vector<BenchJob> jobs, const std::vector<std::optional<int>>& lanes,
                                       DeviceMode mode) {
  if (mode != DeviceMode::kEach || lanes.size() < 2 || !lanes.front()) return jobs;
  std::vector<BenchJob> placed;
  placed.reserve(jobs.size() * lanes.size());
  for (const std::optional<int>& device : lanes) {
    const std::size_t base = placed.size();
    for (BenchJob job : jobs) {
      job.device = device_tag_of(*job.backend, *device);
      if (job.check) job.check->device = job.device;  // a check kept or judged before placing
      if (job.peer_job) *job.peer_job += base;
      if (job.copy_job) *job.copy_job += base;
      placed.push_back(std::move(job));
    }
  }
  return placed;
}

std::vector<BenchUnit> bench_units(const std::vector<BenchJob>& jobs) {
  std::vector<BenchUnit> units;
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    const std::optional<int> device = jobs[i].device ? std::optional(jobs[i].device->index) : std::nullopt;
    if (!units.empty() && jobs[units.back().first].test_case == jobs[i].test_case && units.back().device == device) {
      units.back().end = i + 1;
      continue;
    }
    units.push_back({i, i + 1, device});
  }
  return units;
}

bool time_units(std::vector<BenchJob>& jobs, const std::vector<BenchUnit>& units, std::vector<char>& held,
                const std::vector<std::optional<int>>& lanes, const std::vector<std::unique_ptr<BenchWorkers>>& workers,
                const std::function<void(std::size_t)>& measured) {
  std::atomic<std::size_t> next{0};  // spread: the next unit not yet started
  std::atomic<bool> stopped{false};
  std::mutex lock;                   // held, and `measured`'s sinks
  std::vector<std::exception_ptr> errors(lanes.size());
  // A unit's jobs back to back on this lane: its peer's figure is on the same device as the rest.
  const auto time_unit = [&](std::size_t lane, const BenchUnit& unit) {
    for (std::size_t i = unit.first; i < unit.end && !stopped; ++i) {
      {
        const std::lock_guard guard(lock);
        if (held[i]) continue;
      }
      if (lanes[lane] && !jobs[i].device) jobs[i].device = device_tag_of(*jobs[i].backend, *lanes[lane]);
      if (!workers[lane]->measure(jobs, i)) {
        stopped = true;
        return;
      }
      const std::lock_guard guard(lock);
      if (jobs[i].check && jobs[i].device) jobs[i].check->device = jobs[i].device;
      held[i] = 1;
      measured(i);
    }
  };
  const bool shared_queue = units.empty() || !units.front().device;
  const auto run_lane = [&](std::size_t lane) {
    try {
      if (shared_queue)
        for (std::size_t u = next++; u < units.size() && !stopped; u = next++) time_unit(lane, units[u]);
      else
        for (const BenchUnit& unit : units)
          if (!stopped && unit.device == lanes[lane]) time_unit(lane, unit);
    } catch (...) {
      errors[lane] = std::current_exception();
      stopped = true;
    }
  };
  if (lanes.size() == 1) {
    run_lane(0);
  } else {
    std::vector<std::thread> threads;
    for (std::size_t lane = 0; lane < lanes.size(); ++lane) threads.emplace_back(run_lane, lane);
    for (std::thread& t : threads) t.join();
  }
  for (const std::exception_ptr& e : errors)
    if (e) std::rethrow_exception(e);
  return !stopped;
}

}  // namespace opcert
