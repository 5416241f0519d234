// The timing loop of `opcert bench`, run inside the backend's worker process (`opcert worker
// --bench`), so that a backend that crashes or hangs in one benchmark costs that row only (the
// runner's WorkerSession turns it into CRASHED or TIMEOUT and starts a fresh worker).
//
// Per job: the case is prepared (PreparedCase), checked once, warmed up, then registered as one
// Google Benchmark benchmark and run; each Google Benchmark iteration is one sampling, launches
// timed one by one (SampleTimer) until the sampling policy stops them, with the GPU read through
// NVML before and after. The reporter's runs go back to the runner as a BenchMeasurement.
#pragma once

#include <functional>
#include <map>
#include <memory>

#include "bench/bench_protocol.h"
#include "loader/backend_handle.h"
#include "loader/platform/platform_config.h"
#include "model/case.h"
#include "session/execution/execution.h"
#include "session/worker/worker_protocol.h"

namespace opcert {

class BenchEngine;

class BenchWorker {
 public:
  /// Initialises Google Benchmark with the settings' flags; InputError for a flag it does not take.
  /// `platforms` (may be null) gives the peaks a request names; `options_for` the execution options
  /// of a case (device, memory cap, tolerances).
  BenchWorker(BackendHandle& backend, const PlatformCatalog* platforms, BenchWorkerSettings settings,
              std::function<ExecutionOptions(const Case&)> options_for);
  ~BenchWorker();
  BenchWorker(const BenchWorker&) = delete;
  BenchWorker& operator=(const BenchWorker&) = delete;

  /// Checks and times one bench job (its "bench" part a BenchRequest) on case `c`: the answer's
  /// result is its check, its bench part the BenchMeasurement.
  WorkerAnswer measure(const JobRequest& job, const Case& c);

 private:
  /// A support_only request: query_op and the memory admission, here, so that a plugin that
  /// crashes or hangs in query_op costs that row alone.
  WorkerAnswer support(const JobRequest& job, const Case& c);

  BackendHandle& backend_;
  const PlatformCatalog* platforms_;
  BenchWorkerSettings settings_;
  std::function<ExecutionOptions(const Case&)> options_for_;
  std::unique_ptr<BenchEngine> engine_;
};

/// Google Benchmark's Initialize with opcert's argv[0] and `flags`; InputError for a flag it does
/// not take. The runner calls it to check the flags, each bench worker to time with them.
void initialize_google_benchmark(const std::vector<std::string>& flags);

}  // namespace opcert
