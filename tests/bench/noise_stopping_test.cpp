// Noise-aware stopping end to end, with the paced test plugin (an fp32 softmax whose device time is
// set per launch: 2 ms on the sleep20 case, steady or ±20% jittery): a steady benchmark stops once
// its minimum time is measured, a jittery one samples on until the standard error of its batch
// means converges, or to --max-time and says so; the time flags take either Google Benchmark
// version's spelling; and a launch the host takes long to issue is timed as the device runs it.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>

#include "bench/report_files.h"
#include "cli/run_opcert.h"

namespace opcert::test {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

std::string paced_args(const std::string& out, const std::string& impl, const std::string& extra) {
  return std::string("bench --plugin ") + TEST_PACED_PLUGIN + " --backend paced --no-peer --suite " + TIMED_SUITE +
         " --out " + out + " --filter '^sleep20$' --impl " + impl + " " + extra;
}

struct Bench {
  CommandResult result;
  json report;
  json record;  // the one benchmark
};

Bench bench(const std::string& impl, const std::string& extra) {
  TempDir dir;
  const std::string out = dir.path() + "/out";
  Bench b{run_opcert(paced_args(out, impl, extra)), json(), json()};
  if (b.result.exit_code == 0) {
    b.report = read_json(fs::path(out) / "report.json");
    if (b.report.at("benchmarks").size() == 1) b.record = b.report.at("benchmarks")[0];
    const std::string problems = schema_problems(REPORT_SCHEMA, fs::path(out) / "report.json");
    if (problems != "skip") {
      EXPECT_EQ(problems, "") << problems;
    }
  }
  return b;
}

const json& only_repetition(const Bench& b) { return b.record.at("repetitions").at(0); }

// The queued launch costs the host 1 ms to issue and the device 2 ms to run. Timed alone from an
// idle device (start event, launch, stop event, wait) it would read 3 ms; queued back to back, each
// launch starts as the previous one ends, and the figure is the device's 2 ms.
TEST(LaunchTiming, TheHostsTimeToIssueALaunchStaysOutOfItsFigure) {
  const Bench queued = bench("paced.softmax.queued", "--benchmark_min_time=0.05 --max-time 1");
  ASSERT_EQ(queued.result.exit_code, 0) << queued.result.out << queued.result.err;
  const json& q = only_repetition(queued);
  EXPECT_EQ(q.at("stopped_by"), "noise");
  EXPECT_EQ(q.at("samples").get<int>(), 30);
  EXPECT_NEAR(queued.record.at("seconds").get<double>(), 0.002, 1e-9);
}

// The host-bound launch takes the host 3 ms to issue and the device 2 ms to run: queued, each waits
// on the host, so the figure is the host's 3 ms, and the row says so (host_share at least 1, marked
// h). The queued one's 1 ms of issue hides behind its 2 ms on the device: not host-bound.
TEST(LaunchTiming, AHostBoundLaunchIsMarkedAndOneTheHostKeepsAheadOfIsNot) {
  const Bench bound = bench("paced.softmax.hostbound", "--benchmark_min_time=0.05 --benchmark_repetitions=1 --max-time 1");
  const Bench queued = bench("paced.softmax.queued", "--benchmark_min_time=0.05 --benchmark_repetitions=1 --max-time 1");
  ASSERT_EQ(bound.result.exit_code, 0) << bound.result.out << bound.result.err;
  ASSERT_EQ(queued.result.exit_code, 0) << queued.result.out << queued.result.err;
  EXPECT_NEAR(bound.record.at("seconds").get<double>(), 0.003, 1e-9);
  EXPECT_GE(only_repetition(bound).at("host_share").get<double>(), 1.0);
  EXPECT_EQ(bound.record.at("host_bound"), true);
  EXPECT_NE(bound.result.out.find(" h |"), std::string::npos) << bound.result.out;
  EXPECT_NE(bound.result.out.find("1 benchmark(s) were host-bound (marked h)"), std::string::npos) << bound.result.out;
  EXPECT_LT(only_repetition(queued).at("host_share").get<double>(), 0.5);
  EXPECT_EQ(queued.record.at("host_bound"), false);
  EXPECT_EQ(queued.result.out.find("host-bound"), std::string::npos) << queued.result.out;
}

TEST(NoiseStopping, AJitteryBenchmarkSamplesLongerThanASteadyOne) {
  const Bench steady = bench("paced.softmax.steady", "--benchmark_min_time=0.05 --max-time 1");
  // The plugin's device time passes in a fraction of the wall time: a target of 0.01% keeps the
  // jittery one sampling to the 0.3 s limit.
  const Bench jittery = bench("paced.softmax.jittery", "--benchmark_min_time=0.05 --max-time 0.3 --max-noise 0.01");
  ASSERT_EQ(steady.result.exit_code, 0) << steady.result.out << steady.result.err;
  ASSERT_EQ(jittery.result.exit_code, 0) << jittery.result.out << jittery.result.err;  // noise never gates

  // Steady: 2 ms a launch, no noise: done at its minimum, 10 batches of 3 launches (5 ms each at
  // least), long before the limit.
  const json& s = only_repetition(steady);
  EXPECT_EQ(s.at("stopped_by"), "noise");
  EXPECT_LT(s.at("noise").get<double>(), 1e-6);
  EXPECT_EQ(s.at("samples").get<int>(), 30);
  EXPECT_EQ(s.at("batches").get<int>(), 10);
  EXPECT_EQ(s.at("throttled_batches").get<int>(), 0);
  EXPECT_EQ(s.at("iterations"), s.at("samples"));
  EXPECT_LT(s.at("sampling_s").get<double>(), 1.0);
  EXPECT_NEAR(steady.record.at("seconds").get<double>(), 0.002, 1e-9);
  EXPECT_EQ(steady.record.at("noise_limited"), false);

  // Jittery: ±20% uniform a launch, about 6.7% on the mean of a batch of 3: some 450,000 batches
  // before the standard error is 0.01%.
  const json& j = only_repetition(jittery);
  EXPECT_EQ(j.at("stopped_by"), "time_limit");
  EXPECT_GT(j.at("noise").get<double>(), 0.0001);
  EXPECT_GE(j.at("sampling_s").get<double>(), 0.3);
  EXPECT_GT(j.at("samples").get<int>(), s.at("samples").get<int>());
  EXPECT_EQ(jittery.record.at("noise_limited"), true);
  EXPECT_NEAR(jittery.record.at("seconds").get<double>(), 0.002, 0.0002);

  // The table shows the noise each reached, and marks the one that stopped at the limit.
  EXPECT_NE(steady.result.out.find("0.00%"), std::string::npos) << steady.result.out;
  EXPECT_EQ(steady.result.out.find("--max-time"), std::string::npos) << steady.result.out;
  EXPECT_NE(jittery.result.out.find("%!"), std::string::npos) << jittery.result.out;
  EXPECT_NE(jittery.result.out.find("reached --max-time without converging to --max-noise"), std::string::npos)
      << jittery.result.out;

  // The policy is on record, the batch rule's settings with it.
  const json& policy = jittery.report.at("bench_settings").at("sampling");
  EXPECT_EQ(policy.at("max_noise").get<double>(), 0.0001);
  EXPECT_EQ(policy.at("max_time_s").get<double>(), 0.3);
  EXPECT_EQ(policy.at("min_time_s").get<double>(), 0.05);
  EXPECT_EQ(policy.at("batch_s").get<double>(), 0.005);
  EXPECT_EQ(policy.at("min_batches").get<int>(), 10);
}

// The same ±20% per launch: at 0.5% the mean is known after some 200 batches, before 5 s; at 50%
// at the minimum, with fewer samples.
TEST(NoiseStopping, LaunchNoiseThatBatchesAverageOutConvergesAndALooserTargetSooner) {
  const Bench tight = bench("paced.softmax.jittery", "--benchmark_min_time=0.05 --max-time 5");
  const Bench loose = bench("paced.softmax.jittery", "--benchmark_min_time=0.05 --max-time 5 --max-noise 50");
  for (const Bench* b : {&tight, &loose}) {
    ASSERT_EQ(b->result.exit_code, 0) << b->result.out << b->result.err;
    EXPECT_EQ(only_repetition(*b).at("stopped_by"), "noise");
    EXPECT_LT(only_repetition(*b).at("sampling_s").get<double>(), 5.0);
    EXPECT_EQ(b->record.at("noise_limited"), false);
  }
  EXPECT_LE(only_repetition(tight).at("noise").get<double>(), 0.005);
  EXPECT_GT(only_repetition(tight).at("samples").get<int>(), only_repetition(loose).at("samples").get<int>());
}

TEST(NoiseStopping, NoTargetStopsAtTheMinimumTime) {
  const Bench b = bench("paced.softmax.jittery", "--benchmark_min_time=0.05 --max-noise 0");
  ASSERT_EQ(b.result.exit_code, 0) << b.result.out << b.result.err;
  EXPECT_EQ(only_repetition(b).at("stopped_by"), "min_time");
}

TEST(NoiseStopping, MinTimeTakesEitherSpellingAndACount) {
  // Google Benchmark 1.7 refuses "0.05s", 1.8 the bare number: opcert takes both, the same way.
  const Bench bare = bench("paced.softmax.steady", "--benchmark_min_time=0.05");
  const Bench suffixed = bench("paced.softmax.steady", "--benchmark_min_time=0.05s");
  ASSERT_EQ(bare.result.exit_code, 0) << bare.result.out << bare.result.err;
  ASSERT_EQ(suffixed.result.exit_code, 0) << suffixed.result.out << suffixed.result.err;
  EXPECT_EQ(only_repetition(bare).at("samples"), only_repetition(suffixed).at("samples"));
  EXPECT_EQ(bare.report.at("bench_settings").at("sampling").at("min_time_s").get<double>(), 0.05);

  const Bench counted = bench("paced.softmax.jittery", "--benchmark_min_time=40x");
  ASSERT_EQ(counted.result.exit_code, 0) << counted.result.out << counted.result.err;
  EXPECT_EQ(only_repetition(counted).at("samples"), 40);
  EXPECT_EQ(only_repetition(counted).at("stopped_by"), "samples");
  EXPECT_EQ(counted.report.at("bench_settings").at("sampling").at("fixed_samples"), 40);
}

TEST(NoiseStopping, EveryRepetitionIsSampledOnItsOwn) {
  const Bench b = bench("paced.softmax.steady", "--benchmark_min_time=0.02 --benchmark_repetitions=3");
  ASSERT_EQ(b.result.exit_code, 0) << b.result.out << b.result.err;
  ASSERT_EQ(b.record.at("repetitions").size(), 3u);
  for (const auto& rep : b.record.at("repetitions")) {
    EXPECT_EQ(rep.at("stopped_by"), "noise");
    EXPECT_GE(rep.at("samples").get<int>(), 10);
  }
}

TEST(NoiseStopping, OffAGpuThereAreNoReadingsAndTheReportSaysWhy) {
  const Bench b = bench("paced.softmax.steady", "--benchmark_min_time=0.02");
  ASSERT_EQ(b.result.exit_code, 0) << b.result.out << b.result.err;
  const json& conditions = only_repetition(b).at("conditions");
  EXPECT_TRUE(conditions.at("start").is_null());
  EXPECT_TRUE(conditions.at("end").is_null());
  EXPECT_TRUE(b.record.at("condition_flags").empty());
  const json& source = b.report.at("bench_settings").at("conditions");
  EXPECT_TRUE(source.at("source").is_null());
  EXPECT_EQ(source.at("unavailable"), "no CUDA device was benchmarked");
  EXPECT_EQ(b.result.out.find("SM MHz"), std::string::npos) << b.result.out;  // no GPU, no clock column
}

TEST(NoiseStopping, BadTimeFlagsAreOneLineErrors) {
  for (const std::string extra : {"--benchmark_min_time=fast", "--benchmark_min_time=0x", "--benchmark_min_time",
                                  "--benchmark_min_warmup_time=-1", "--max-noise -1", "--max-noise 100",
                                  "--max-time 0", "--benchmark_min_time=2 --max-time 1"}) {
    TempDir dir;
    const auto r = run_opcert(paced_args(dir.path() + "/out", "paced.softmax.steady", extra));
    EXPECT_EQ(r.exit_code, 2) << extra << ": " << r.out << r.err;
    EXPECT_NE(r.err.find("opcert: error:"), std::string::npos) << extra << ": " << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << extra << ": " << r.err;
  }
}

}  // namespace
}  // namespace opcert::test
