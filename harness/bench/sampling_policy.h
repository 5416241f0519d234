// When `opcert bench` stops timing launches of one benchmark (one repetition of it): as nvbench
// does, once the samples' relative standard deviation (their noise) is under a target, or at a
// wall-clock limit when it never gets there; never before a minimum of samples and of measured
// time. Google Benchmark still runs the benchmarks, their repetitions and their aggregates: each
// of its iterations is one such sampling.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace opcert {

struct SamplingPolicy {
  double min_time_s = 0.5;               ///< --benchmark_min_time=S: measured time before stopping
  std::optional<int64_t> fixed_samples;  ///< --benchmark_min_time=Nx: exactly N launches, no noise rule
  double max_noise = 0.005;              ///< --max-noise PCT, as a fraction; 0: stop at min_time
  double max_time_s = 5.0;               ///< --max-time S: wall-clock limit of one sampling
  int64_t min_samples = 10;              ///< below this the noise is not an estimate
  double warmup_s = 0.05;                ///< --benchmark_min_warmup_time=S: untimed launches first
  int64_t warmup_launches = 3;           ///< and at least this many
};

/// The running count, mean and spread of sample times (Welford's update: one pass, stable).
class NoiseTracker {
 public:
  void add(double seconds);
  int64_t count() const { return count_; }
  double total() const { return total_; }
  double mean() const { return count_ > 0 ? mean_ : 0.0; }
  /// Sample standard deviation over the mean; 0 with fewer than two samples or a zero mean.
  double relative_stddev() const;

 private:
  int64_t count_ = 0;
  double total_ = 0.0;
  double mean_ = 0.0;
  double m2_ = 0.0;
};

enum class StopReason { kContinue, kNoise, kMinTime, kTimeLimit, kSamples };

/// Whether a sampling with `samples` so far, `wall_s` seconds after it began, is done, and why:
/// kSamples at a fixed count; else kNoise (or kMinTime without a noise target) once min_samples
/// and min_time_s are reached with the noise at or under max_noise; else kTimeLimit at max_time_s.
StopReason should_stop(const SamplingPolicy& policy, const NoiseTracker& samples, double wall_s);

/// "noise", "min_time", "time_limit", "samples" (report.json's stopped_by); "" for kContinue.
std::string stop_reason_name(StopReason reason);

/// Takes the time flags opcert owns out of Google Benchmark's pass-through list into `policy`, in
/// either spelling of the installed or a newer Google Benchmark: --benchmark_min_time=0.3,
/// =0.3s or =100x (1.8 refuses the bare number, 1.7 the suffix; opcert takes all three) and
/// --benchmark_min_warmup_time=S. Throws InputError naming the flag for a bad value.
void take_time_flags(std::vector<std::string>& benchmark_flags, SamplingPolicy& policy);

/// Checks the policy's own flags (--max-noise, --max-time) against each other and the time flags.
void validate(const SamplingPolicy& policy);

}  // namespace opcert
