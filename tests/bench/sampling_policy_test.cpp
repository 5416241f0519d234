// bench/sampling_policy.h: when a sampling of batched launches stops and why, and the time flags
// opcert takes from Google Benchmark's in either version's spelling.
#include "bench/sampling_policy.h"

#include <gtest/gtest.h>

#include <cmath>
#include <numeric>

#include "model/input_error.h"

namespace opcert {
namespace {

// `n` launches of `seconds` ± jitter (alternating), closed into batches as the worker does.
BatchMeans samples(const SamplingPolicy& p, int n, double seconds, double jitter) {
  BatchMeans t = batch_means_for(p);
  for (int i = 0; i < n; ++i) {
    t.add(seconds * (1 + (i % 2 == 0 ? jitter : -jitter)));
    if (t.batch_full()) t.close_batch(std::nullopt);
  }
  return t;
}

TEST(ShouldStop, AQuietSamplingStopsOnceItHasItsMinimumTimeBatchesAndSamples) {
  SamplingPolicy p;
  p.min_time_s = 0.1;
  EXPECT_EQ(should_stop(p, samples(p, 9, 0.02, 0), 0.2), StopReason::kContinue);    // time, but 9 samples
  EXPECT_EQ(should_stop(p, samples(p, 20, 0.001, 0), 0.2), StopReason::kContinue);  // 4 batches, 0.02 s
  EXPECT_EQ(should_stop(p, samples(p, 200, 0.001, 0), 0.2), StopReason::kNoise);
}

TEST(ShouldStop, NoisyBatchMeansGoOnToTheTimeLimit) {
  SamplingPolicy p;
  p.min_time_s = 0.1;
  p.max_time_s = 2.0;
  p.batch_s = 0.001;  // one launch a batch: the batch means carry the launches' 10% noise
  const BatchMeans noisy = samples(p, 100, 0.002, 0.1);  // 1% standard error against a 0.5% target
  EXPECT_EQ(should_stop(p, noisy, 1.9), StopReason::kContinue);
  EXPECT_EQ(should_stop(p, noisy, 2.0), StopReason::kTimeLimit);
  p.max_noise = 0.02;
  EXPECT_EQ(should_stop(p, noisy, 1.0), StopReason::kNoise);
  p.max_noise = 0;
  EXPECT_EQ(should_stop(p, noisy, 1.0), StopReason::kMinTime);
}

TEST(ShouldStop, LaunchNoiseThatBatchesAverageOutStillConverges) {
  SamplingPolicy p;
  p.min_time_s = 0.1;
  // ±10% from launch to launch (what per-launch spread would never bring under 0.5%), but every
  // 5 ms batch averages it away.
  EXPECT_EQ(should_stop(p, samples(p, 200, 0.001, 0.1), 0.3), StopReason::kNoise);
}

TEST(ShouldStop, AFixedCountIgnoresTimeAndNoise) {
  SamplingPolicy p;
  p.fixed_samples = 5;
  EXPECT_EQ(should_stop(p, samples(p, 4, 1.0, 0.5), 100.0), StopReason::kContinue);
  EXPECT_EQ(should_stop(p, samples(p, 5, 1e-6, 0.5), 0.0), StopReason::kSamples);
}

TEST(ShouldStop, ReasonsHaveTheirReportNames) {
  EXPECT_EQ(stop_reason_name(StopReason::kNoise), "noise");
  EXPECT_EQ(stop_reason_name(StopReason::kMinTime), "min_time");
  EXPECT_EQ(stop_reason_name(StopReason::kTimeLimit), "time_limit");
  EXPECT_EQ(stop_reason_name(StopReason::kSamples), "samples");
}

TEST(TimeFlags, BothSpellingsOfSecondsACountAndTheWarmUpAreTakenTheRestPassThrough) {
  std::vector<std::string> flags = {"--benchmark_repetitions=3", "--benchmark_min_time=0.3",
                                    "--benchmark_min_warmup_time=1.5s", "--benchmark_filter=x"};
  SamplingPolicy p;
  take_time_flags(flags, p);
  EXPECT_EQ(flags, (std::vector<std::string>{"--benchmark_repetitions=3", "--benchmark_filter=x"}));
  EXPECT_EQ(p.min_time_s, 0.3);
  EXPECT_EQ(p.warmup_s, 1.5);
  EXPECT_FALSE(p.fixed_samples);

  std::vector<std::string> suffixed = {"--benchmark_min_time=0.3s"};
  SamplingPolicy q;
  take_time_flags(suffixed, q);
  EXPECT_TRUE(suffixed.empty());
  EXPECT_EQ(q.min_time_s, 0.3);

  std::vector<std::string> counted = {"--benchmark_min_time=250x"};
  take_time_flags(counted, q);
  EXPECT_EQ(q.fixed_samples, 250);
}

TEST(RepetitionDefaults, FiveRepetitionsShareTheMeasuredTimeUnlessTheUserSaidOtherwise) {
  // Nothing given: five repetitions (compare's rank test needs four a side), 0.1 s each.
  std::vector<std::string> none = {"--benchmark_filter=x"};
  SamplingPolicy p;
  apply_repetition_defaults(none, p, take_time_flags(none, p), false);
  EXPECT_EQ(none, (std::vector<std::string>{"--benchmark_filter=x", "--benchmark_repetitions=5"}));
  EXPECT_EQ(repetitions_of(none), 5);
  EXPECT_DOUBLE_EQ(p.min_time_s, 0.1);
  EXPECT_DOUBLE_EQ(p.max_time_s, 1.0);

  // Repetitions given: they are kept, and the 0.5 s is shared over them.
  std::vector<std::string> two = {"--benchmark_repetitions=2"};
  SamplingPolicy q;
  apply_repetition_defaults(two, q, take_time_flags(two, q), false);
  EXPECT_EQ(two, (std::vector<std::string>{"--benchmark_repetitions=2"}));
  EXPECT_DOUBLE_EQ(q.min_time_s, 0.25);
  EXPECT_DOUBLE_EQ(q.max_time_s, 2.5);

  // A minimum time given is each repetition's, as Google Benchmark reads it; the default limit
  // never falls under it.
  std::vector<std::string> timed = {"--benchmark_min_time=3s"};
  SamplingPolicy r;
  apply_repetition_defaults(timed, r, take_time_flags(timed, r), false);
  EXPECT_EQ(repetitions_of(timed), 5);
  EXPECT_DOUBLE_EQ(r.min_time_s, 3.0);
  EXPECT_DOUBLE_EQ(r.max_time_s, 3.0);

  // A limit given (--max-time) is kept as it is.
  std::vector<std::string> limited;
  SamplingPolicy l;
  l.max_time_s = 4.0;
  apply_repetition_defaults(limited, l, take_time_flags(limited, l), true);
  EXPECT_DOUBLE_EQ(l.max_time_s, 4.0);

  EXPECT_EQ(repetitions_of({}), 1);
}

TEST(TimeFlags, BadValuesNameTheFlag) {
  for (const std::string flag : {"--benchmark_min_time=", "--benchmark_min_time=s", "--benchmark_min_time=-1",
                                 "--benchmark_min_time=0x", "--benchmark_min_time=1.5x", "--benchmark_min_time=nan",
                                 "--benchmark_min_time", "--benchmark_min_warmup_time=10x"}) {
    std::vector<std::string> flags = {flag};
    SamplingPolicy p;
    try {
      take_time_flags(flags, p);
      ADD_FAILURE() << flag << " was taken";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("--benchmark_min"), std::string::npos) << e.what();
    }
  }
}

TEST(Validate, RejectsWhatCannotStop) {
  SamplingPolicy p;
  EXPECT_NO_THROW(validate(p));
  p.max_noise = -0.01;
  EXPECT_THROW(validate(p), InputError);
  p.max_noise = 1.0;
  EXPECT_THROW(validate(p), InputError);
  p = SamplingPolicy{};
  p.max_time_s = 0;
  EXPECT_THROW(validate(p), InputError);
  p = SamplingPolicy{};
  p.min_time_s = 10;
  p.max_time_s = 5;
  EXPECT_THROW(validate(p), InputError);
  p.fixed_samples = 100;  // a count has no minimum time
  EXPECT_NO_THROW(validate(p));
}

}  // namespace
}  // namespace opcert
