// Everything measured for one benchmark of `opcert bench`: an implementation timed on a case (or,
// for a collective, on a case at one size of the sweep). The record `benchmark_done` carries to
// every sink of the result stream, and report.json's "benchmarks" entries.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "model/device_tag.h"
#include "model/measurement_conditions.h"
#include "model/status.h"

namespace opcert {

/// How one repetition's launches were sampled (noise-aware stopping, bench/sampling_policy.h).
struct Sampling {
  int64_t samples = 0;      ///< launches timed
  double noise = 0.0;       ///< relative standard error of the kept batch means, a fraction
  int64_t batches = 0;      ///< batches kept (bench/batch_means.h)
  int64_t throttled_batches = 0;  ///< batches dropped: read at a throttled SM clock
  std::string stopped_by;   ///< "noise", "time_limit" or "samples" (a fixed count)
  double elapsed_s = 0.0;   ///< wall time the sampling took, flushes and waits included
  /// The host's wall time to issue the queued launches over the device's time to run them (bench/
  /// sample_timer.h): near 1, the device waited on the host. None when each launch was timed alone
  /// (--cold-l2) or by the wall clock (a backend without events).
  std::optional<double> host_share;
  SamplingConditions conditions;
};

/// One run as Google Benchmark reports it, a repetition or an aggregate of them; bench.json holds
/// them in Google Benchmark's JSON shape (so its tools/compare.py reads two runs).
struct BenchRun {
  std::string name;                 ///< Google Benchmark's name: "<run_name>" or "<run_name>_<aggregate>"
  std::string run_name;             ///< "<case id>/<impl key>", with "/manual_time" when device-timed
  std::string aggregate;            ///< "" for a repetition; "mean", "median", "stddev", "cv", ...
  bool aggregate_is_percentage = false;  ///< cv: `seconds` is a fraction, not a time
  int64_t family_index = 0;
  int64_t per_family_instance_index = 0;
  int64_t repetitions = 1;
  int64_t repetition_index = 0;
  int64_t threads = 1;
  int64_t iterations = 0;
  double seconds = 0.0;             ///< wall (or device) time per launch
  double cpu_seconds = 0.0;         ///< the host's CPU time per launch
  std::string error;                ///< why the run stopped ("" when it did not)
  std::map<std::string, double> counters;  ///< tflops, gbps, pct_peak, speedup_vs_peer, pct_of_copy
  std::optional<Sampling> sampling;  ///< a repetition's sampling; empty for an aggregate or a collective
};

/// The sweep's figures of one collective row (nccl-tests' columns).
struct CollectiveFigures {
  uint64_t size_bytes = 0;
  int64_t count = 0;
  std::string dtype;
  std::optional<std::string> reduce_op;
  std::optional<int64_t> root;
  bool in_place = false;
  int ranks = 1;
  int iters = 0;
  int warmup = 0;
  std::vector<std::optional<double>> seconds_per_rank;
  std::optional<double> algbw_gbps;
  double bus_factor = 0.0;
  std::optional<double> busbw_gbps;
  std::optional<double> peer_busbw_gbps;
  std::optional<double> ratio_vs_peer;
};

struct BenchRecord {
  std::string name;           ///< "<case id>/<impl key>"
  std::string backend;
  std::string impl_key;
  std::string case_id;
  std::string op;
  bool peer = false;          ///< the peer's row: the yardstick, never gating
  bool copy_baseline = false; ///< a device-to-device copy of the case's bytes, not the op
  std::optional<Status> check;  ///< the one check before timing; empty for a copy baseline
  std::string check_message;    ///< why the check did not pass ("" when it did)
  std::string error;            ///< why it was not timed, or stopped ("" when it was timed)
  std::string timing;           ///< "events" or "wall"; "" when nothing was timed
  std::string library_call;     ///< the library call the implementation makes, as its backend says (ABI 1.1); "" when it does not
  uint64_t published_bytes = 0; ///< bytes the backend moved into the outputs after the timed launches (ABI 1.1 publish_outputs)
  double flops = 0.0;
  double bytes = 0.0;
  std::string compute_dtype;    ///< the peak TFLOP/s key; "" for a memory-bound op
  std::string platform;         ///< whose peaks apply; "" for none
  std::vector<BenchRun> runs;   ///< repetitions, then aggregates
  std::optional<double> seconds;  ///< the typical time per launch: the median of the repetitions
  std::optional<double> spread;   ///< max/min spread of the repetitions around it, a fraction
  std::optional<double> tflops;
  std::optional<double> gbps;
  std::optional<double> pct_peak;
  std::optional<double> speedup_vs_peer;  ///< the peer's time over this one's, on the same case
  std::optional<double> pct_of_copy;      ///< 100 · the copy baseline's time over this one's
  std::optional<double> noise;            ///< the largest noise of the repetitions, a fraction
  bool noise_limited = false;             ///< a repetition stopped at the time limit, above the noise target
  /// The median repetition's host_share is at least kHostBoundShare: the device waited on the host,
  /// so the time is the host's rate of issuing the call, not the device's time to run it.
  bool host_bound = false;
  std::vector<std::string> condition_flags;  ///< "throttled", "clock-capped": from any reading of any repetition
  std::optional<CollectiveFigures> collective;
  std::optional<DeviceTag> device;  ///< --devices: the device it was timed on (its peer's row was timed there too)
  std::optional<int> rank;          ///< a bench across the ranks of an MPI job: the rank that timed it
};

/// A row whose launches took the host at least this share of the device's time to issue is
/// host-bound: the host had no lead left, so launches waited on it (docs/PERFORMANCE.md, "How a
/// launch is timed").
inline constexpr double kHostBoundShare = 0.9;

/// The median of the repetitions' seconds, else the "median" aggregate; empty without either.
std::optional<double> typical_seconds(const std::vector<BenchRun>& runs);
/// max/min spread of the repetitions around their median, a fraction; empty under two repetitions.
std::optional<double> repetition_spread(const std::vector<BenchRun>& runs);
/// The seconds of the repetitions that were timed (no aggregate, no error), in run order.
std::vector<double> repetition_seconds(const std::vector<BenchRun>& runs);
/// Every GPU reading of the sampled repetitions, in order: each repetition's start, then its end.
std::vector<GpuReading> gpu_readings(const std::vector<BenchRun>& runs);
/// The largest noise of the sampled repetitions; empty when none was sampled.
std::optional<double> largest_noise(const std::vector<BenchRun>& runs);
/// Whether the median host_share of the repetitions that have one is at least kHostBoundShare;
/// false when none has one.
bool is_host_bound(const std::vector<BenchRun>& runs);

}  // namespace opcert
