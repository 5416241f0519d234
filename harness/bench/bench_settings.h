// What `opcert bench` is told beyond what every session is (session/planning/session_settings.h).
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "bench/sampling_policy.h"
#include "ranks/world.h"
#include "session/planning/device_choice.h"
#include "session/planning/session_settings.h"

namespace opcert {

struct BenchSettings : SessionSettings {
  bool cold_l2 = false;        // --cold-l2: flush the last-level cache before each sample
  bool copy_baseline = false;  // --copy-baseline: time a copy of each memory-bound case's bytes
  /// When each benchmark's sampling stops (--max-noise, --max-time and the time flags opcert takes
  /// from Google Benchmark's: --benchmark_min_time, --benchmark_min_warmup_time).
  SamplingPolicy sampling;
  /// Google Benchmark's own flags, passed through (--benchmark_repetitions=..., ...), less the time
  /// flags `sampling` took.
  std::vector<std::string> benchmark_flags;
  /// --max-memory: the most a case may need (session/execution/memory_admission.h); 0 for no cap beyond the
  /// host's available memory and the device's.
  uint64_t max_memory = 0;
  /// --resume: out_dir holds an earlier bench of the same job (job.json); the cases it measured
  /// whole are kept, the rest measured (bench/bench_resume.h).
  bool resume = false;
  /// --timeout: how long a benchmark's check and warm-up may take in its worker, beyond --max-time
  /// for each repetition's sampling (bench/bench_workers.h); past it the row is TIMEOUT.
  std::chrono::milliseconds timeout{60000};
  /// --devices: the device indices to bench on (bench/bench_lanes.h); nullopt for the backends'
  /// first devices, untagged, as before.
  std::optional<DeviceChoice> devices;
  /// --device-mode: spread, the devices share the cases (a case, its peer included, on one device);
  /// each, every device benches every case.
  DeviceMode device_mode = DeviceMode::kSpread;
  /// The ranks of an MPI job that share the bench (--devices under mpirun or srun, spread: each
  /// times its share of the cases on its node's devices, rank 0 writes the outputs;
  /// bench/bench_ranks.h). Null: this process alone.
  World* world = nullptr;
};

}  // namespace opcert
