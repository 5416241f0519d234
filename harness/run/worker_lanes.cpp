#include "run/worker_lanes.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <exception>
#include <thread>

#include "session/job/job_record.h"
#include "session/job/repro.h"
#include "session/job/run_paths.h"
#include "session/job/stop_request.h"
#include "session/worker/worker_launch.h"
#include "session/worker/worker_session.h"

namespace opcert {
namespace {

std::string session_log(const LaneLogs& logs, const RunTarget& t, const Lane& lane) {
  return (std::filesystem::path(logs.log_dir) / worker_log_file(t.backend->name(), lane.device)).string();
}

WorkerLaunch launch_for(const RunTarget& t, const Lane& lane, const Suite& suite, const RunSettings& s,
                        const LaneLogs& logs) {
  return worker_launch(t.backend->name(), lane.device, suite, s, logs.log_dir, logs.shown_prefix,
                       std::max<std::chrono::milliseconds>(std::chrono::seconds(120), s.timeout));
}

}  // namespace

std::vector<Lane> plan_lanes(const std::vector<RunTarget>& targets, const RunSettings& s, int rank, int local_rank,
                             int local_size) {
  std::vector<Lane> lanes;
  for (std::size_t t = 0; t < targets.size(); ++t) {
    const RunTarget& target = targets[t];
    if (!s.devices || target.peer) {
      if (rank == 0 || s.device_mode == DeviceMode::kSpread) lanes.push_back({t, std::nullopt});
      continue;
    }
    const auto& devices = target.backend->devices();
    const std::vector<int> chosen = resolve_devices(*s.devices, target.backend->name(), devices.size());
    for (const int index : node_share(chosen, local_rank, local_size)) lanes.push_back({t, device_tag_of(*target.backend, index)});
  }
  return lanes;
}

std::size_t lane_result_count(const std::vector<Lane>& lanes, std::size_t todo, DeviceMode mode) {
  if (lanes.empty()) return 0;
  return mode == DeviceMode::kSpread ? todo : lanes.size() * todo;
}

bool run_lanes(const std::vector<Lane>& lanes, const std::vector<RunTarget>& targets, const std::vector<Job>& jobs,
               const std::vector<std::size_t>& todo, const Suite& suite, const RunSettings& s, const LaneLogs& logs,
               const LaneEvents& events, const std::set<std::string>& finished) {
  std::atomic<bool> stopped{false};
  std::atomic<std::size_t> next_shared{0};  // spread: the queue's head, shared by the lanes
  const bool shared = s.device_mode == DeviceMode::kSpread;
  const ReproContext repro{s.repro_suite, s.seed, s.repro_options};
  const std::function<bool()> stop = [] { return stop_requested(); };
  const auto run_one = [&](const Lane& lane) {
    const RunTarget& target = targets[lane.target];
    WorkerSession session(launch_for(target, lane, suite, s, logs));
    const std::optional<int> device = lane.device ? std::optional<int>(lane.device->index) : std::nullopt;
    std::size_t next_own = 0;
    for (;;) {
      const std::size_t position = shared ? next_shared++ : next_own++;
      if (position >= todo.size()) break;
      const Job& job = jobs[todo[position]];
      if (stop_requested()) {
        stopped = true;
        break;
      }
      const Case& c = suite.cases[job.case_index];
      if (!finished.empty() && finished.contains(result_identity(job.backend, job.impl_key, c.id, device))) continue;
      events.started({job.backend, job.impl_key, c.id});
      auto result = session.run({c.id, job.impl_key}, c, s.timeout, stop);
      if (!result) {
        stopped = true;
        break;
      }
      if (result->repro.empty())
        result->repro = repro_line(target.backend->name(), target.backend->source(), job.impl_key, c.id, repro, device);
      events.done(std::move(*result), job.peer);
    }
    session.shutdown();
    if (session.starts() > 1)
      events.note(fmt::format("{}{}: the worker was started {} times (crashes and timeouts restart it); its stderr is "
                              "in {}",
                              target.backend->name(), lane.device ? " device " + std::to_string(lane.device->index) : "",
                              session.starts(), session_log(logs, target, lane)));
  };
  if (lanes.size() == 1) {
    run_one(lanes.front());
  } else {
    // A lane's exception is carried out of its thread and rethrown here, as one lane's would be;
    // every started thread is joined first, even when starting another fails.
    std::vector<std::exception_ptr> errors(lanes.size());
    std::exception_ptr start_error;  // not in `errors`: the running threads write into it
    std::vector<std::thread> threads;
    threads.reserve(lanes.size());
    try {
      for (std::size_t i = 0; i < lanes.size(); ++i)
        threads.emplace_back([&, i] {
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
    for (auto& t : threads) t.join();
    if (start_error) std::rethrow_exception(start_error);
    for (const auto& e : errors)
      if (e) std::rethrow_exception(e);
  }
  return !stopped && !stop_requested();
}

}  // namespace opcert
