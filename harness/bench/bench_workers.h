// The runner's side of `opcert bench`'s workers: one worker process per backend, on one device
// (the backend's first, or the lane's with --devices: bench/bench_lanes.h), started at its backend's first job, as `opcert run` starts its own
// (session/worker/worker_launch.h); the timing loop runs in it (bench/bench_worker.h). A worker that
// crashes, hangs past the job's limit or answers garbage costs that job alone: its check becomes
// CRASHED, TIMEOUT or ERROR with the reason, and the backend's next job gets a fresh worker.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "bench/bench_job.h"
#include "bench/bench_settings.h"
#include "check/suite.h"
#include "session/planning/targets.h"
#include "session/worker/input_cache_folder.h"
#include "session/worker/worker_session.h"

namespace opcert {

class BenchWorkers {
 public:
  /// Workers for `suite` under `s`, each pinned to device `device` of its backend when given (every
  /// check tagged with it); each writes its stderr to <out>/logs/<backend>[.device<N>].worker.log.
  /// With `shared_host_bytes`, the workers share a big case's inputs and reference through a
  /// folder sized to it (session/worker/input_cache_folder.h): the peer's worker makes them, the
  /// backend's reads them; the folder holds one case, the one being timed.
  BenchWorkers(const Suite& suite, const BenchSettings& s, std::optional<int> device = std::nullopt,
               uint64_t shared_host_bytes = 0);

  /// The host bytes each lane's folder is sized to: the host's available memory shared out among
  /// the `lanes` lanes of each of the `local_ranks` ranks on this host, where two backends or more
  /// time the same cases; else 0 (nothing to share).
  static uint64_t shared_host_bytes(const std::vector<RunTarget>& targets, std::size_t lanes, int local_ranks = 1);
  ~BenchWorkers();

  /// Asks `backend`'s worker whether `impl_key` on `c` is to be timed (query_op and the memory
  /// admission run there): nullopt when it is, with the call the backend names in `library_call`;
  /// else the row's verdict: SKIPPED (declined, too big), ERROR (query_op threw), or CRASHED or
  /// TIMEOUT when the worker died or hung in query_op.
  std::optional<CaseResult> unsupported(BackendHandle& backend, const std::string& impl_key, const Case& c,
                                        std::string& library_call);

  /// Checks and times jobs[index] in its backend's worker, filling in its outcome (check, error,
  /// timing method, library call, published bytes, runs, latest mean). Its peer's and copy
  /// baseline's jobs, timed before it, give the speedup counters. False when a stop was asked for.
  bool measure(std::vector<BenchJob>& jobs, std::size_t index);

  /// The GPU monitor's description from the workers that timed a CUDA device; null when none did.
  const nlohmann::json& conditions() const { return conditions_; }

  /// Closes every worker; one note per backend whose worker had to be started again.
  std::vector<std::string> shutdown();

  /// How long one job may take before its worker is killed: --timeout for the check and warm-up,
  /// and --max-time for each repetition's sampling (Google Benchmark's --benchmark_repetitions);
  /// with a fixed count of launches (--benchmark_min_time=Nx), --timeout alone.
  static std::chrono::milliseconds job_limit(const BenchSettings& s);

 private:
  WorkerSession& session_for(const BackendHandle& backend);

  std::optional<DeviceTag> device_of(const BackendHandle& backend) const;

  const Suite& suite_;
  const BenchSettings& settings_;
  std::optional<int> device_;
  std::string worker_settings_;  // the --bench argument every worker gets
  std::map<std::string, std::unique_ptr<WorkerSession>> sessions_;
  nlohmann::json conditions_;
  InputCacheFolder shared_inputs_;
  std::string shared_case_;  // the case whose files shared_inputs_ holds
};

}  // namespace opcert
