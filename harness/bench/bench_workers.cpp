#include "bench/bench_workers.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "bench/bench_protocol.h"
#include "bench/sampling_policy.h"
#include "session/execution/memory_admission.h"
#include "session/planning/device_choice.h"
#include "session/job/stop_request.h"
#include "session/worker/worker_launch.h"
#include "util/duration.h"

namespace opcert {

BenchWorkers::BenchWorkers(const Suite& suite, const BenchSettings& s, std::optional<int> device,
                           uint64_t shared_host_bytes)
    : suite_(suite),
      settings_(s),
      device_(device),
      worker_settings_(bench_worker_settings_json({s.sampling, s.cold_l2, s.benchmark_flags}).dump()),
      shared_inputs_(shared_host_bytes) {}

uint64_t BenchWorkers::shared_host_bytes(const std::vector<RunTarget>& targets, std::size_t lanes, int local_ranks) {
  if (targets.size() < 2 || lanes == 0) return 0;
  return host_share_bytes(local_ranks) / lanes;
}

BenchWorkers::~BenchWorkers() { shutdown(); }

std::chrono::milliseconds BenchWorkers::job_limit(const BenchSettings& s) {
  // A fixed count of launches (--benchmark_min_time=Nx) has no time limit of its own: --timeout is all.
  const double per_sampling_s = s.sampling.fixed_samples ? 0.0 : s.sampling.max_time_s;
  const double sampling_s = static_cast<double>(repetitions_of(s.benchmark_flags)) * per_sampling_s;
  return s.timeout + milliseconds_from_seconds(sampling_s);
}

std::optional<DeviceTag> BenchWorkers::device_of(const BackendHandle& backend) const {
  if (!device_) return std::nullopt;
  // bench_lanes checked before any worker started that every backend has the device.
  return device_tag_of(backend, *device_);
}

WorkerSession& BenchWorkers::session_for(const BackendHandle& backend) {
  auto& slot = sessions_[backend.name()];
  if (!slot) {
    WorkerLaunch launch = worker_launch(backend.name(), device_of(backend), suite_, settings_, (settings_.out_dir / "logs").string(),
                                        "", std::max<std::chrono::milliseconds>(std::chrono::seconds(120), settings_.timeout));
    launch.args.insert(launch.args.end(), {"--bench", worker_settings_});
    for (std::string& variable : shared_inputs_.environment()) launch.environment.push_back(std::move(variable));
    if (settings_.max_memory > 0) launch.args.insert(launch.args.end(), {"--max-memory", std::to_string(settings_.max_memory)});
    slot = std::make_unique<WorkerSession>(std::move(launch));
  }
  return *slot;
}

std::optional<CaseResult> BenchWorkers::unsupported(BackendHandle& backend, const std::string& impl_key, const Case& c,
                                                    std::string& library_call) {
  BenchRequest request;
  request.support_only = true;
  auto answer = session_for(backend).exchange({c.id, impl_key, bench_request_json(request)}, c, settings_.timeout,
                                              [] { return stop_requested(); });
  if (!answer) {  // a stop was asked for: the job is not measured, and says why
    CaseResult r = blank_result(backend.name(), impl_key, c);
    r.status = Status::kError;
    r.message = "interrupted before its support was known";
    return r;
  }
  if (answer->bench.is_null()) return std::move(answer->result);  // the worker died or hung in query_op
  try {
    const BenchMeasurement m = bench_measurement_from_json(answer->bench);
    if (m.checked) return std::move(answer->result);
    library_call = m.library_call;
    return std::nullopt;
  } catch (const std::exception& e) {
    CaseResult r = blank_result(backend.name(), impl_key, c);
    r.status = Status::kError;
    r.message = fmt::format("the worker's support answer could not be read: {}", e.what());
    return r;
  }
}

bool BenchWorkers::measure(std::vector<BenchJob>& jobs, std::size_t index) {
  BenchJob& job = jobs[index];
  BenchRequest request;
  request.copy_baseline = job.copy_baseline;
  request.platform = job.platform ? job.platform->name : "";
  if (job.peer_job) request.peer_mean_s = jobs[*job.peer_job].latest_mean_s;
  if (job.copy_job) request.copy_mean_s = jobs[*job.copy_job].latest_mean_s;
  const Case& c = *job.test_case;
  if (c.id != shared_case_) {  // a lane times a case's jobs back to back: the last case's files are done with
    shared_inputs_.clear();
    shared_case_ = c.id;
  }
  auto answer = session_for(*job.backend)
                    .exchange({c.id, job.impl_key, bench_request_json(request)}, c, job_limit(settings_),
                              [] { return stop_requested(); });
  if (!answer) return false;
  BenchMeasurement m;
  if (!answer->bench.is_null()) {
    try {
      m = bench_measurement_from_json(answer->bench);
    } catch (const std::exception& e) {
      answer->result.status = Status::kError;
      answer->result.message = fmt::format("the worker's measurement could not be read: {}", e.what());
      answer->bench = nullptr;
    }
  }
  if (answer->bench.is_null()) {
    // The worker died, hung or could not run the job: the row says so, and is not timed. A copy
    // baseline has no check to carry the status: its error names it.
    if (job.copy_baseline) {
      job.error = fmt::format("{}: {}", status_name(answer->result.status), answer->result.message);
    } else {
      job.error = answer->result.message;
      job.check = std::move(answer->result);
    }
    return true;
  }
  if (m.checked) job.check = std::move(answer->result);
  job.error = std::move(m.error);
  job.timing_method = std::move(m.timing_method);
  if (!m.library_call.empty()) job.library_call = std::move(m.library_call);
  job.published_bytes = m.published_bytes;
  job.latest_mean_s = m.latest_mean_s;
  job.runs = std::move(m.runs);
  if (!m.conditions.is_null()) conditions_ = std::move(m.conditions);
  return true;
}

std::vector<std::string> BenchWorkers::shutdown() {
  std::vector<std::string> notes;
  for (auto& [backend, session] : sessions_) {
    session->shutdown();
    if (session->starts() > 1)
      notes.push_back(fmt::format("{}: the worker was started {} times (crashes and timeouts restart it); its stderr is "
                                  "in {}",
                                  backend, session->starts(), (settings_.out_dir / "logs" / worker_log_file(backend, session->device())).string()));
  }
  sessions_.clear();
  return notes;
}

}  // namespace opcert
