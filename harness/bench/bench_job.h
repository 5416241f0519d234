// One benchmark of `opcert bench`: an implementation on a case, with the work it does, the peaks
// that apply, its torch peer, and what was measured.
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "opkit/work_model.h"
#include "loader/backend_handle.h"
#include "loader/platform/platform_config.h"
#include "model/case.h"
#include "model/case_result.h"

namespace opcert {

/// One run Google Benchmark reported for a benchmark: a repetition, or an aggregate of them.
struct ReportedRun {
  std::string aggregate;  ///< "" for a repetition; "mean", "median", "stddev", "cv" for an aggregate
  int64_t iterations = 0;
  double seconds = 0.0;   ///< per launch (for "cv": the coefficient of variation, a fraction)
};

struct BenchJob {
  BackendHandle* backend = nullptr;
  std::string impl_key;
  const Case* test_case = nullptr;
  bool peer = false;                     ///< the torch peer: timed for the speedup, never gating
  /// `--copy-baseline`: not the op but a device-to-device copy moving the case's bytes (half read,
  /// half written), timed the same way: the yardstick of a memory-bound op. No check.
  bool copy_baseline = false;
  std::string name;                      ///< the benchmark's name: "<case id>/<impl key>"
  WorkModel work;
  const PlatformConfig* platform = nullptr;  ///< whose peaks give the percentages; may be null
  std::optional<std::size_t> peer_job;   ///< the torch job on the same case, when there is one
  std::optional<std::size_t> copy_job;   ///< the copy baseline of the same case and backend, when there is one

  // Outcome.
  std::optional<CaseResult> check;       ///< the one check before timing (or why it could not run)
  std::string error;                     ///< a failure while timing; the benchmark stopped
  std::string timing_method;             ///< "events" or "wall"
  double latest_mean_s = 0.0;            ///< mean seconds per launch of the latest timed batch
  std::vector<ReportedRun> reported;     ///< what Google Benchmark reported

  /// The figure the table and the speedups use: the median of the repetitions (or their median
  /// aggregate), else the one repetition. Empty when nothing was reported.
  std::optional<double> typical_seconds() const;
  /// max/min spread of the repetitions around the median, as a fraction; empty with one repetition.
  std::optional<double> spread() const;
};

/// 100 · the copy baseline's time over the job's: the job's bandwidth as a percent of a plain
/// device-to-device copy of the same bytes. Empty without a measured baseline.
std::optional<double> percent_of_copy(const BenchJob& job, const std::vector<BenchJob>& jobs);

}  // namespace opcert
