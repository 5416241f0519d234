// When `opcert bench` stops timing launches of one benchmark (one repetition of it): once the mean
// time per launch is known to --max-noise, that is, once the relative standard error of the means
// of batches of launches (bench/batch_means.h) is under it and the two halves of the sampling
// agree; never before a minimum of batches, samples and measured time; at a wall-clock limit when
// it never gets there. Batches read at a throttled SM clock are dropped and counted. Google
// Benchmark still runs the benchmarks, their repetitions and their aggregates: each of its
// iterations is one such sampling. docs/PERFORMANCE.md compares the rule with nvbench's and
// Google Benchmark's.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "bench/batch_means.h"

namespace opcert {

/// Repetitions of each benchmark when --benchmark_repetitions is not given: compare's rank test
/// needs 4 a side to reach p < 0.05 (5 reach 0.008), so two default benches can gate each other.
inline constexpr int64_t kDefaultRepetitions = 5;
/// The measured time of one benchmark when --benchmark_min_time is not given, shared out over its
/// repetitions (0.1 s each at the default 5).
inline constexpr double kDefaultMeasuredSeconds = 0.5;
/// The wall-clock limit of one benchmark's sampling when --max-time is not given, shared out over
/// its repetitions the same way (1 s each at the default 5).
inline constexpr double kDefaultTimeLimitSeconds = 5.0;

struct SamplingPolicy {
  double min_time_s = kDefaultMeasuredSeconds;  ///< --benchmark_min_time=S: measured time before stopping
  std::optional<int64_t> fixed_samples;  ///< --benchmark_min_time=Nx: exactly N launches, no noise rule
  double max_noise = 0.005;              ///< --max-noise PCT: the batch means' relative standard error, a fraction; 0: stop at min_time
  double max_time_s = kDefaultTimeLimitSeconds;  ///< --max-time S: wall-clock limit of one sampling
  int64_t min_samples = 10;              ///< launches, at least
  double batch_s = 0.005;                ///< a batch closes once its launches add up to this
  int64_t min_batches = 10;              ///< below this the standard error is not an estimate
  double drift_factor = 3.0;             ///< the halves' means may differ by this many max_noise, at most
  double throttle_fraction = 0.75;       ///< a batch under this fraction of the highest SM clock is dropped
  double warmup_s = 0.05;                ///< --benchmark_min_warmup_time=S: untimed launches first
  int64_t warmup_launches = 3;           ///< and at least this many
};

enum class StopReason { kContinue, kNoise, kMinTime, kTimeLimit, kSamples };

/// Whether a sampling with `batches` so far, `wall_s` seconds after it began, is done, and why:
/// kSamples at a fixed count of launches; else, once min_batches, min_samples and min_time_s are
/// reached by the kept batches, kMinTime without a noise target, or kNoise with their relative
/// standard error at or under max_noise and their halves within drift_factor * max_noise; else
/// kTimeLimit at max_time_s.
StopReason should_stop(const SamplingPolicy& policy, const BatchMeans& batches, double wall_s);

/// An empty BatchMeans for `policy`'s batches.
BatchMeans batch_means_for(const SamplingPolicy& policy);

/// "noise", "min_time", "time_limit", "samples" (report.json's stopped_by); "" for kContinue.
std::string stop_reason_name(StopReason reason);

/// Takes the time flags opcert owns out of Google Benchmark's pass-through list into `policy`, in
/// either spelling of the installed or a newer Google Benchmark: --benchmark_min_time=0.3,
/// =0.3s or =100x (1.8 refuses the bare number, 1.7 the suffix; opcert takes all three) and
/// --benchmark_min_warmup_time=S. Throws InputError naming the flag for a bad value. Returns
/// whether --benchmark_min_time was among them.
bool take_time_flags(std::vector<std::string>& benchmark_flags, SamplingPolicy& policy);

/// Bench's defaults around the flags a user gave (after take_time_flags): without
/// --benchmark_repetitions, --benchmark_repetitions=kDefaultRepetitions joins `benchmark_flags`;
/// without --benchmark_min_time (`min_time_given` false), each repetition's minimum time is
/// kDefaultMeasuredSeconds over the repetitions, and without --max-time (`max_time_given` false)
/// its limit is kDefaultTimeLimitSeconds over them, never under its minimum time: a benchmark's
/// measured time and its worst case stay the same whatever the count of repetitions.
void apply_repetition_defaults(std::vector<std::string>& benchmark_flags, SamplingPolicy& policy, bool min_time_given,
                               bool max_time_given);

/// The repetitions `benchmark_flags` ask for (the last --benchmark_repetitions=N); 1 without one.
int64_t repetitions_of(const std::vector<std::string>& benchmark_flags);

/// Checks the policy's own flags (--max-noise, --max-time) against each other and the time flags.
void validate(const SamplingPolicy& policy);

}  // namespace opcert
