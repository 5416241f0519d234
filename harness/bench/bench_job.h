// One benchmark of `opcert bench`: an implementation on a case, with the work it does, the peaks
// that apply, its peer's and its copy baseline's jobs, and what was measured.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "loader/backend_handle.h"
#include "loader/platform/platform_config.h"
#include "model/bench_record.h"
#include "model/case.h"
#include "model/case_result.h"
#include "model/device_tag.h"
#include "opkit/work_model.h"

namespace opcert {

struct BenchJob {
  BackendHandle* backend = nullptr;
  std::string impl_key;
  const Case* test_case = nullptr;
  bool peer = false;                     ///< taking part only as the peer: timed for the speedups, never gating
  /// `--copy-baseline`: not the op but a device-to-device copy moving the case's bytes (half read,
  /// half written), timed the same way: the yardstick of a memory-bound op. No check.
  bool copy_baseline = false;
  std::string name;                      ///< the benchmark's name: "<case id>/<impl key>"
  WorkModel work;
  const PlatformConfig* platform = nullptr;  ///< whose peaks give the percentages; may be null
  std::optional<std::size_t> peer_job;   ///< the peer's job on the same case, when there is one
  std::optional<std::size_t> copy_job;   ///< the copy baseline of the same case and backend, when there is one
  /// --devices: the device it is timed on (each: planned; spread: the device whose lane took its case).
  std::optional<DeviceTag> device;
  /// Across the ranks of an MPI job: the rank that timed it (bench/bench_ranks.h).
  std::optional<int> rank;

  // Outcome.
  std::optional<CaseResult> check;       ///< the one check before timing (or why it could not run)
  std::string error;                     ///< a failure while timing; the benchmark stopped
  std::string timing_method;             ///< "events" or "wall"
  std::string library_call;              ///< what the implementation calls for this case, when its backend says
  uint64_t published_bytes = 0;          ///< moved into the outputs after the launches, outside the timed region
  double latest_mean_s = 0.0;            ///< mean seconds per launch of the latest timed batch
  std::vector<BenchRun> runs;            ///< what Google Benchmark reported
  /// Samplings done but not yet matched to a run Google Benchmark reported (one per repetition,
  /// in order; the reporter moves each into its run).
  std::vector<Sampling> unreported_samplings;

  /// The figure the table and the speedups use: the median of the repetitions (or their median
  /// aggregate). Empty when nothing was reported or timing failed.
  std::optional<double> typical_seconds() const;
};

/// The peer's time over the job's, on the same case, when both were measured.
std::optional<double> speedup_vs_peer(const BenchJob& job, const std::vector<BenchJob>& jobs);
/// 100 · the copy baseline's time over the job's: the job's bandwidth as a percent of a plain
/// device-to-device copy of the same bytes. Empty without a measured baseline.
std::optional<double> percent_of_copy(const BenchJob& job, const std::vector<BenchJob>& jobs);

/// The record of `job` as the result stream carries it: its figures, and its speed against its
/// peer's and its copy baseline's jobs (measured before it: they come first in `jobs`).
BenchRecord bench_record(const BenchJob& job, const std::vector<BenchJob>& jobs);

}  // namespace opcert
