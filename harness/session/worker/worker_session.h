// The runner's side of one backend's worker: starts it, hands it jobs one at a time under the
// per-case timeout, and turns a crash, a hang or a garbled answer into that job's result
// (CRASHED, TIMEOUT, ERROR) before starting a fresh worker for the next job.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "model/case.h"
#include "model/case_result.h"
#include "model/device_tag.h"
#include "session/worker/worker_process.h"
#include "session/worker/worker_protocol.h"

namespace opcert {

struct WorkerLaunch {
  std::string executable;          // the opcert binary
  std::vector<std::string> args;   // "worker", "--backend", name, ...
  std::string log_path;            // the worker's stderr, appended across restarts
  std::string log_name;            // how messages name the log ("logs/cpu.worker.log")
  std::string backend;
  std::vector<std::string> environment;  // "NAME=value" set for the worker (OPCERT_DEVICE)
  std::optional<DeviceTag> device;       // the device it is pinned to: every result is tagged with it
  std::size_t expected_cases = 0;  // the suite as the runner loaded it
  std::chrono::milliseconds startup_timeout{120000};
};

/// How long the harness's own part of a job (inputs, reference, check) may take before the worker
/// is taken for hung: ten times the case's timeout, and at least 10 minutes (a model case's inputs
/// are gigabytes, and side-by-side workers share the cores).
std::chrono::milliseconds harness_phase_limit(std::chrono::milliseconds timeout);

class WorkerSession {
 public:
  explicit WorkerSession(WorkerLaunch launch) : launch_(std::move(launch)) {}
  ~WorkerSession() { shutdown(); }
  WorkerSession(const WorkerSession&) = delete;
  WorkerSession& operator=(const WorkerSession&) = delete;

  /// Runs `job` (a case of `c`), starting a worker first if none is running. Always gives a
  /// result, except nullopt when `stop` asked to stop (the worker is then killed).
  std::optional<CaseResult> run(const JobRequest& job, const Case& c, std::chrono::milliseconds timeout,
                                const std::function<bool()>& stop);
  /// As run, with the answer's bench part (null when the worker died, timed out or the job is not
  /// a bench job).
  std::optional<WorkerAnswer> exchange(const JobRequest& job, const Case& c, std::chrono::milliseconds timeout,
                                       const std::function<bool()>& stop);
  /// The launch's device, if any (results of run carry it).
  const std::optional<DeviceTag>& device() const { return launch_.device; }

  /// Closes the worker's input, lets it exit (killing it after a short grace).
  void shutdown();

  /// Why no worker could be started ("" while one can); every later job gets ERROR with it.
  const std::string& broken() const { return broken_; }
  /// How many workers were started (1 + restarts).
  int starts() const { return starts_; }

 private:
  enum class Start { kReady, kFailed, kStopped };
  Start start(const std::function<bool()>& stop);
  std::optional<WorkerAnswer> run_untagged(const JobRequest& job, const Case& c, std::chrono::milliseconds timeout,
                                           const std::function<bool()>& stop);
  /// The worker log's size, and what it holds past `offset`: a dead worker's last words are there.
  uint64_t log_size() const;
  std::string log_since(uint64_t offset) const;
  /// Appends a line of the runner's own to the worker log, so the log tells the whole story.
  void log(const std::string& line) const;
  WorkerAnswer synthesized(const JobRequest& job, const Case& c, Status status, const std::string& message,
                           double duration_ms) const;

  WorkerLaunch launch_;
  std::unique_ptr<WorkerProcess> process_;
  std::string broken_;
  int starts_ = 0;
};

}  // namespace opcert
