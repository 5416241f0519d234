#include "run/worker_lanes.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <exception>
#include <map>
#include <memory>
#include <mutex>
#include <thread>

#include "ranks/world.h"
#include "run/case_queue.h"
#include "run/lane_memory.h"
#include "run/shared_inputs.h"
#include "session/execution/memory_admission.h"
#include "session/job/job_record.h"
#include "session/job/repro.h"
#include "session/job/run_paths.h"
#include "session/job/stop_request.h"
#include "session/worker/worker_launch.h"
#include "session/worker/worker_session.h"

namespace opcert {
namespace {

std::string session_log(const LaneLogs& logs, const RunTarget& t, const Lane& lane) {
  return (std::filesystem::path(logs.log_dir) / worker_log_file(t.backend->name(), lane.device, lane.slot)).string();
}

// Side by side, the workers' OpenMP threads (the inputs' generation, LibTorch's reference) are
// more than the cores: they wait passively, so that a thread waiting at a barrier does not spin
// away a core another worker needs, and each keeps all the cores for when it runs alone (a
// model case's gigabytes of inputs, the run's last case). A user's OMP_WAIT_POLICY stands.
WorkerLaunch launch_for(const RunTarget& t, const Lane& lane, const Suite& suite, const RunSettings& s,
                        const LaneLogs& logs, bool side_by_side, const InputCacheFolder& cache) {
  WorkerLaunch launch = worker_launch(t.backend->name(), lane.device, suite, s, logs.log_dir, logs.shown_prefix,
                                      std::max<std::chrono::milliseconds>(std::chrono::seconds(120), s.timeout), lane.slot);
  if (side_by_side && std::getenv("OMP_WAIT_POLICY") == nullptr) launch.environment.push_back("OMP_WAIT_POLICY=passive");
  for (std::string& variable : cache.environment()) launch.environment.push_back(std::move(variable));
  return launch;
}

// Which queue a lane takes from: its target's, and with --device-mode each its device's too.
std::pair<std::size_t, int> queue_key(const Lane& lane, bool shared) {
  return {lane.target, shared || !lane.device ? -1 : lane.device->index};
}

}  // namespace

int workers_per_place(int asked, std::size_t places, unsigned cores, int local_size) {
  if (asked > 0) return asked;
  const unsigned mine = std::max(1u, cores / static_cast<unsigned>(std::max(1, local_size)));
  const auto per_place = mine / (2 * static_cast<unsigned>(std::max<std::size_t>(1, places)));
  return static_cast<int>(std::clamp(per_place, 1u, 4u));
}

std::vector<Lane> plan_lanes(const std::vector<RunTarget>& targets, const RunSettings& s, int rank, int local_rank,
                             int local_size, unsigned cores) {
  std::vector<Lane> places;
  for (std::size_t t = 0; t < targets.size(); ++t) {
    const RunTarget& target = targets[t];
    if (!s.devices || target.peer) {
      if (rank == 0 || s.device_mode == DeviceMode::kSpread) places.push_back({t, std::nullopt});
      continue;
    }
    const auto& devices = target.backend->devices();
    const std::vector<int> chosen = resolve_devices(*s.devices, target.backend->name(), devices.size());
    for (const int index : node_share(chosen, local_rank, local_size)) places.push_back({t, device_tag_of(*target.backend, index)});
  }
  const int workers = workers_per_place(s.workers, places.size(), cores, local_size);
  std::vector<Lane> lanes;
  for (const Lane& place : places)
    for (int slot = 0; slot < workers; ++slot) lanes.push_back({place.target, place.device, slot});
  return lanes;
}

std::size_t lane_result_count(const std::vector<Lane>& lanes, std::size_t todo, DeviceMode mode) {
  if (lanes.empty()) return 0;
  if (mode == DeviceMode::kSpread) return todo;
  std::set<int> devices;
  for (const Lane& l : lanes) devices.insert(l.device ? l.device->index : -1);
  return devices.size() * todo;
}

bool run_lanes(const std::vector<Lane>& lanes, const std::vector<RunTarget>& targets, const std::vector<Job>& jobs,
               const std::vector<std::vector<std::size_t>>& todo, const Suite& suite, const RunSettings& s,
               const LaneLogs& logs, const LaneEvents& events, const std::set<std::string>& finished) {
  std::atomic<bool> stopped{false};
  const bool shared = s.device_mode == DeviceMode::kSpread;
  const ReproContext repro{s.repro_suite, s.seed, s.repro_options};
  const std::function<bool()> stop = [] { return stop_requested(); };

  std::map<std::pair<std::size_t, int>, std::size_t> lanes_on;
  for (const Lane& lane : lanes) ++lanes_on[queue_key(lane, shared)];
  std::map<std::pair<std::size_t, int>, std::unique_ptr<CaseQueue>> queues;
  for (const Lane& lane : lanes) {
    auto& queue = queues[queue_key(lane, shared)];
    if (queue) continue;
    const std::vector<std::size_t> none;
    const std::vector<std::size_t>& mine = lane.target < todo.size() ? todo[lane.target] : none;
    queue = std::make_unique<CaseQueue>(jobs, mine, suite, device_is_host(lane_device(targets[lane.target], lane)),
                                        lanes_on[queue_key(lane, shared)] > 1);
  }
  // The ranks of a job on one host gate their lanes each on its own: each takes its share of the host.
  const int local_ranks = s.world != nullptr && s.world->size() > 1 ? s.world->local_size() : 1;
  const uint64_t host_available = lanes.size() > 1 ? host_share_bytes(local_ranks) : 0;
  SharedInputs shared_inputs(lanes, host_available);
  for (const auto& [key, queue] : queues)
    for (std::size_t g = 0; g < queue->size(); ++g) shared_inputs.expect(queue->at(g));
  LaneMemory memory(lanes, targets, host_gate_capacity(host_available, shared_inputs.set_aside()));

  const auto run_one = [&](const Lane& lane) {
    const RunTarget& target = targets[lane.target];
    CaseQueue& queue = *queues.at(queue_key(lane, shared));
    const std::optional<int> device = lane.device ? std::optional<int>(lane.device->index) : std::nullopt;
    std::unique_ptr<WorkerSession> session;  // started with its first case: a lane with none starts none
    while (const CaseGroup* group = queue.next()) {
      if (stop_requested()) {
        stopped = true;
        break;
      }
      const GroupHold hold(memory, lane, *group, stop);
      if (!hold.held()) {
        stopped = true;
        break;
      }
      // Alone (bigger than the gate), a case finds the memory free that it would without the cache.
      if (group->host_bytes > memory.host().capacity()) shared_inputs.folder().clear();
      for (const std::size_t j : group->jobs) {
        const Job& job = jobs[j];
        const Case& c = suite.cases[job.case_index];
        if (!finished.empty() && finished.contains(result_identity(job.backend, job.impl_key, c.id, device))) continue;
        if (stop_requested()) {
          stopped = true;
          break;
        }
        if (!session)
          session = std::make_unique<WorkerSession>(
              launch_for(target, lane, suite, s, logs, lanes.size() > 1, shared_inputs.folder()));
        events.started({job.backend, job.impl_key, c.id});
        auto result = session->run({c.id, job.impl_key}, c, s.timeout, stop);
        if (!result) {
          stopped = true;
          break;
        }
        if (result->repro.empty())
          result->repro = repro_line(target.backend->name(), target.backend->source(), job.impl_key, c.id, repro, device);
        events.done(std::move(*result), job.peer);
      }
      if (stopped) break;
      shared_inputs.done(*group, suite);
    }
    if (!session) return;
    session->shutdown();
    if (session->starts() > 1)
      events.note(fmt::format("{}{}: the worker was started {} times (crashes and timeouts restart it); its stderr is "
                              "in {}",
                              target.backend->name(), lane.device ? " device " + std::to_string(lane.device->index) : "",
                              session->starts(), session_log(logs, target, lane)));
  };
  if (lanes.size() == 1) {
    run_one(lanes.front());
  } else {
    // A lane's exception is carried out of its thread and rethrown here, as one lane's would be;
    // every started thread is joined first, even when starting another fails.
    std::vector<std::exception_ptr> errors(lanes.size());
    std::exception_ptr start_error;  // not in `errors`: the running threads write into it
    std::vector<std::thread> threads_of_lanes;
    threads_of_lanes.reserve(lanes.size());
    try {
      for (std::size_t i = 0; i < lanes.size(); ++i)
        threads_of_lanes.emplace_back([&, i] {
          try {
            run_one(lanes[i]);
          } catch (...) {
            errors[i] = std::current_exception();
          }
        });
    } catch (...) {
      stopped = true;
      start_error = std::current_exception();
    }
    for (auto& t : threads_of_lanes) t.join();
    if (start_error) std::rethrow_exception(start_error);
    for (const auto& e : errors)
      if (e) std::rethrow_exception(e);
  }
  return !stopped && !stop_requested();
}

}  // namespace opcert
