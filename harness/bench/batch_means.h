// The samples of one sampling grouped into batches, and what the stop rule reads off them: the mean
// time per launch, the relative standard error of the batch means, and whether the sampling drifts.
// A batch closes once its launches add up to SamplingPolicy::batch_s: its mean averages the
// launch-to-launch jitter (clock steps of a power-capped GPU, timer resolution) that a single
// launch's time carries, so the batch means are close to independent and their standard error
// says how well the mean is known (docs/PERFORMANCE.md, "When sampling stops").
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

namespace opcert {

class BatchMeans {
 public:
  /// `batch_s`: the launch time a batch holds before it closes; `throttle_fraction`: a batch read
  /// at an SM clock under this fraction of the sampling's highest reading is dropped.
  BatchMeans(double batch_s, double throttle_fraction) : batch_s_(batch_s), throttle_fraction_(throttle_fraction) {}

  /// One launch's time into the open batch.
  void add(double seconds);
  /// True when the open batch holds at least batch_s of launches.
  bool batch_full() const { return open_.seconds >= batch_s_; }
  /// Closes the open batch with the SM clock read as it closed (none off a GPU or without NVML).
  /// A batch whose clock is under throttle_fraction of the highest clock read in the sampling is
  /// dropped: kept batches read before a higher clock are dropped then too.
  void close_batch(std::optional<double> sm_clock_mhz);

  int64_t samples() const { return samples_; }              ///< launches timed, dropped ones included
  int64_t kept_batches() const { return kept_; }
  int64_t dropped_batches() const;                           ///< closed batches dropped as throttled
  int64_t kept_samples() const { return kept_samples_; }
  double kept_seconds() const { return kept_seconds_; }
  /// Seconds per launch over the kept batches; over every launch when none is kept yet.
  double mean() const;
  /// The standard deviation of the kept batch means over the square root of their count, over
  /// their mean; 0 with fewer than two kept batches.
  double relative_standard_error() const { return rse_; }
  /// How far apart, relative to the mean, the first and the second half of the kept batches are.
  double halves_gap() const { return halves_gap_; }

 private:
  struct Batch {
    double seconds = 0.0;
    int64_t launches = 0;
    std::optional<double> clock;
  };
  void recompute();

  double batch_s_;
  double throttle_fraction_;
  std::vector<Batch> closed_;
  Batch open_;
  double highest_clock_ = 0.0;
  int64_t samples_ = 0;
  double all_seconds_ = 0.0;
  int64_t kept_ = 0, kept_samples_ = 0;
  double kept_seconds_ = 0.0, rse_ = 0.0, halves_gap_ = 0.0;
};

}  // namespace opcert
