// bench/batch_means.h with should_stop over synthetic sample streams, run as the worker runs them
// (a launch, a batch closed with the SM clock once full, the stop rule), on a simulated clock: a
// clean stream converges long before the cap, a noisy one reaches it, a drifting one reaches it
// though its standard error is small, a throttled stretch is dropped and counted, and a lasting
// step is sampled until the new level holds both halves (docs/PERFORMANCE.md).
#include "bench/batch_means.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <functional>
#include <optional>
#include <random>

#include "bench/sampling_policy.h"

namespace opcert {
namespace {

struct Launch {
  double seconds = 0.0;
  std::optional<double> sm_clock_mhz;
};

struct Outcome {
  StopReason reason = StopReason::kContinue;
  double wall_s = 0.0;  // simulated: the launches' own times
  BatchMeans batches;
};

// Runs `stream` (the launch's time and clock, given the simulated time so far) until the policy stops.
Outcome sample(const SamplingPolicy& p, const std::function<Launch(double wall_s)>& stream) {
  Outcome o{StopReason::kContinue, 0.0, batch_means_for(p)};
  while (o.reason == StopReason::kContinue) {
    const Launch l = stream(o.wall_s);
    o.batches.add(l.seconds);
    o.wall_s += l.seconds;
    if (o.batches.batch_full()) o.batches.close_batch(l.sm_clock_mhz);
    o.reason = should_stop(p, o.batches, o.wall_s);
  }
  return o;
}

// Uniform in [-1, 1), the same on every standard library (mt19937 is specified; the distributions are not).
class Jitter {
 public:
  double next() { return static_cast<double>(engine_()) / 2147483648.0 - 1.0; }

 private:
  std::mt19937 engine_{42};
};

constexpr double kLaunch = 100e-6;

SamplingPolicy policy() {
  SamplingPolicy p;  // the defaults: 0.5% target, 5 ms batches, 0.5 s minimum
  p.max_time_s = 5.0;
  return p;
}

TEST(BatchMeans, ACleanStreamConvergesAtItsMinimumLongBeforeTheCap) {
  Jitter j;
  const Outcome o = sample(policy(), [&](double) { return Launch{kLaunch * (1 + 0.03 * j.next()), 1980.0}; });
  EXPECT_EQ(o.reason, StopReason::kNoise);
  EXPECT_LT(o.wall_s, policy().max_time_s / 4);
  EXPECT_LE(o.batches.relative_standard_error(), policy().max_noise);
  EXPECT_EQ(o.batches.dropped_batches(), 0);
}

TEST(BatchMeans, ANoisyStreamReachesTheCap) {
  Jitter j;
  // One launch in a hundred takes fifty times as long: batch means stay far apart.
  std::size_t i = 0;
  const Outcome o = sample(policy(), [&](double) {
    const double slow = (++i % 100 == 0) ? 50.0 : 1.0;
    return Launch{kLaunch * slow * (1 + 0.5 * j.next()), std::nullopt};
  });
  EXPECT_EQ(o.reason, StopReason::kTimeLimit);
  EXPECT_GT(o.batches.relative_standard_error(), policy().max_noise);
}

TEST(BatchMeans, ADriftingStreamReachesTheCapThoughItsStandardErrorIsSmall) {
  // 10% slower per second of sampling: each batch is steady, the halves never agree.
  const auto drifting = [](double wall_s) { return Launch{kLaunch * (1 + 0.1 * wall_s), std::nullopt}; };
  const Outcome o = sample(policy(), drifting);
  EXPECT_EQ(o.reason, StopReason::kTimeLimit);
  EXPECT_LE(o.batches.relative_standard_error(), policy().max_noise) << "the standard error alone would stop it";
  EXPECT_GT(o.batches.halves_gap(), policy().drift_factor * policy().max_noise);

  SamplingPolicy no_drift_check = policy();
  no_drift_check.drift_factor = 1e9;
  EXPECT_EQ(sample(no_drift_check, drifting).reason, StopReason::kNoise);
}

TEST(BatchMeans, BatchesAtAThrottledClockAreDroppedAndCounted) {
  // From 0.1 s to 0.3 s the clock falls to half and the launches take twice as long.
  const Outcome o = sample(policy(), [](double wall_s) {
    const bool throttled = wall_s >= 0.1 && wall_s < 0.3;
    return throttled ? Launch{2 * kLaunch, 990.0} : Launch{kLaunch, 1980.0};
  });
  EXPECT_EQ(o.reason, StopReason::kNoise);
  EXPECT_GT(o.batches.dropped_batches(), 0);
  EXPECT_NEAR(o.batches.mean() / kLaunch, 1.0, 0.01) << "the mean is the sustained clock's (a batch across the recovery is kept)";

  // Read without clocks, the same stream keeps every batch and is slower.
  const Outcome blind = sample(policy(), [](double wall_s) {
    return Launch{wall_s >= 0.1 && wall_s < 0.3 ? 2 * kLaunch : kLaunch, std::nullopt};
  });
  EXPECT_EQ(blind.batches.dropped_batches(), 0);
  EXPECT_GT(blind.batches.mean(), o.batches.mean());
}

TEST(BatchMeans, AHigherClockLaterDropsTheBatchesReadBelowIt) {
  BatchMeans b(0.001, 0.75);
  for (int i = 0; i < 4; ++i) {
    b.add(0.002);
    b.close_batch(1000.0);
  }
  EXPECT_EQ(b.kept_batches(), 4);
  b.add(0.001);
  b.close_batch(1980.0);
  EXPECT_EQ(b.kept_batches(), 1);
  EXPECT_EQ(b.dropped_batches(), 4);
  EXPECT_EQ(b.samples(), 5);
}

TEST(BatchMeans, ALastingStepWithinTheClockBandIsSampledUntilTheNewLevelHoldsBothHalves) {
  const auto stepped = [](double wall_s) { return Launch{wall_s < 0.3 ? kLaunch : 1.1 * kLaunch, 1980.0}; };
  SamplingPolicy p = policy();
  p.max_time_s = 30;
  const Outcome o = sample(p, stepped);
  EXPECT_EQ(o.reason, StopReason::kNoise);
  EXPECT_EQ(o.batches.dropped_batches(), 0);
  Jitter j;
  const Outcome clean = sample(p, [&](double) { return Launch{kLaunch * (1 + 0.03 * j.next()), 1980.0}; });
  EXPECT_GT(o.batches.kept_batches(), 2 * clean.batches.kept_batches()) << "the step makes it sample longer";
  EXPECT_GT(o.batches.mean(), 1.05 * kLaunch) << "the new level dominates";
}

}  // namespace
}  // namespace opcert
