// compare/compare_runs.h on runs built by hand: which status changes are regressions, when a
// benchmark is slower (the rank test and the minimum effect together), alignment drift, the
// environment, the gates, and the runs that cannot be matched.
#include "compare/compare_runs.h"

#include <gtest/gtest.h>

#include "compare/compare_backends.h"
#include "model/input_error.h"

namespace opcert {
namespace {

CaseResult result(const std::string& backend, const std::string& case_id, Status status, double rmse = 1e-3,
                  std::optional<double> alignment = 1.0) {
  CaseResult r;
  r.backend = backend;
  r.impl_key = backend + ".op.x";
  r.case_id = case_id;
  r.op = "op";
  r.dtype = "bf16";
  r.status = status;
  r.metrics.push_back(TensorMetrics{});
  r.metrics.back().name = "y";
  r.metrics.back().rmse = rmse;
  r.alignment_ratio = alignment;
  return r;
}

BenchRecord bench(const std::string& backend, const std::string& case_id, const std::vector<double>& seconds,
                  std::optional<double> speedup = std::nullopt) {
  BenchRecord b;
  b.backend = backend;
  b.impl_key = backend + ".op.x";
  b.case_id = case_id;
  b.name = case_id + "/" + b.impl_key;
  b.op = "op";
  for (double s : seconds) {
    BenchRun run;
    run.seconds = s;
    b.runs.push_back(run);
  }
  b.seconds = typical_seconds(b.runs);
  b.speedup_vs_peer = speedup;
  return b;
}

RunReport run_of(std::vector<CaseResult> results, std::vector<BenchRecord> benchmarks = {}) {
  RunReport r;
  r.seed = 1;
  r.environment = {{"cpu", {{"model", "AMD EPYC"}}}, {"libraries", {{"torch", "2.11"}}}};
  r.backends = {{"acme", "1.0", "plugin", "", "", false}, {"torch", "2.11", "built-in", "", "", true}};
  r.results = std::move(results);
  r.benchmarks = std::move(benchmarks);
  return r;
}

const GateFailure* failure(const Comparison& c, const std::string& gate, const std::string& case_id) {
  for (const auto& f : c.failures)
    if (f.gate == gate && f.case_id == case_id) return &f;
  return nullptr;
}

TEST(CompareRuns, StatusRegressionsAreWhatStoppedPassingOrCameNewAndBroken) {
  const RunReport base = run_of({result("acme", "a", Status::kPassed), result("acme", "b", Status::kFailed),
                                 result("acme", "c", Status::kPassed), result("acme", "d", Status::kPassed),
                                 result("acme", "e", Status::kPassed), result("torch", "a", Status::kPassed)});
  const RunReport now = run_of({result("acme", "a", Status::kFailed), result("acme", "b", Status::kPassed),
                                result("acme", "d", Status::kSkipped), result("acme", "e", Status::kPassed),
                                result("acme", "f", Status::kError), result("torch", "a", Status::kError)});
  const Comparison c = compare_runs(base, now, "base", "new", CompareOptions{});
  EXPECT_EQ(c.unchanged_statuses, 1);  // e
  EXPECT_TRUE(failure(c, "status", "a"));   // PASSED -> FAILED
  EXPECT_FALSE(failure(c, "status", "b"));  // fixed
  EXPECT_TRUE(failure(c, "status", "c"));   // gone
  EXPECT_TRUE(failure(c, "status", "d"));   // skipped now: coverage lost
  EXPECT_TRUE(failure(c, "status", "f"));   // new and broken
  std::size_t peer_failures = 0;
  for (const auto& f : c.failures) peer_failures += f.impl_key.rfind("torch", 0) == 0;
  EXPECT_EQ(peer_failures, 0u) << "the peer is shown, never gated";
  EXPECT_EQ(c.failures.size(), 4u);
}

TEST(CompareRuns, ASlowdownFailsOnlyWhenTheRankTestAndTheEffectBothSaySo) {
  const std::vector<double> base_times = {1.00, 1.01, 0.99, 1.00, 1.02};
  const RunReport base = run_of({}, {bench("acme", "slow", base_times), bench("acme", "noisy", base_times),
                                     bench("acme", "few", {1.0, 1.0, 1.0}), bench("acme", "fast", base_times)});
  const RunReport now = run_of({}, {bench("acme", "slow", {1.20, 1.21, 1.19, 1.22, 1.20}),
                                    bench("acme", "noisy", {1.03, 1.02, 1.04, 1.03, 1.01}),  // significant, only +3%
                                    bench("acme", "few", {2.0, 2.0, 2.0}),                   // 3 against 3: untestable
                                    bench("acme", "fast", {0.5, 0.5, 0.51, 0.49, 0.5})});
  const Comparison c = compare_runs(base, now, "base", "new", CompareOptions{});
  ASSERT_EQ(c.timings.size(), 4u);
  EXPECT_EQ(c.timings[0].verdict, TimingVerdict::kSlower);
  EXPECT_NEAR(*c.timings[0].change, 0.20, 1e-9);
  EXPECT_LT(*c.timings[0].p_value, 0.05);
  EXPECT_EQ(c.timings[1].verdict, TimingVerdict::kUnchanged);
  EXPECT_LT(*c.timings[1].p_value, 0.05);
  EXPECT_EQ(c.timings[2].verdict, TimingVerdict::kUntestable);
  EXPECT_FALSE(c.timings[2].p_value);
  EXPECT_EQ(c.timings[3].verdict, TimingVerdict::kFaster);
  EXPECT_TRUE(failure(c, "perf", "slow"));
  EXPECT_EQ(c.failures.size(), 1u);
  EXPECT_FALSE(c.notes.empty()) << "the untestable row is explained";

  CompareOptions looser;
  looser.max_slowdown = 0.25;
  EXPECT_TRUE(compare_runs(base, now, "base", "new", looser).failures.empty());
  looser.max_slowdown = 0.05;
  looser.fail_on = {"status"};
  EXPECT_TRUE(compare_runs(base, now, "base", "new", looser).failures.empty());
}

TEST(CompareRuns, AlignmentGrowthPastTheFactorFails) {
  const RunReport base = run_of({result("acme", "a", Status::kPassed, 1e-3, 1.0), result("acme", "b", Status::kPassed, 1e-3, 1.0),
                                 result("acme", "c", Status::kPassed, 0.0, std::nullopt)});
  const RunReport now = run_of({result("acme", "a", Status::kPassed, 3e-3, 3.0), result("acme", "b", Status::kPassed, 1.5e-3, 1.5),
                                result("acme", "c", Status::kPassed, 1e-6, std::nullopt)});
  const Comparison c = compare_runs(base, now, "base", "new", CompareOptions{});
  ASSERT_EQ(c.drifts.size(), 3u);
  EXPECT_TRUE(failure(c, "alignment", "a"));
  EXPECT_FALSE(failure(c, "alignment", "b"));  // 1.5x, under 2
  EXPECT_TRUE(failure(c, "alignment", "c"));   // exact before, not now
}

TEST(CompareRuns, ThePeerRatioGateJudgesTheNewRunAlone) {
  const RunReport base = run_of({}, {bench("acme", "a", {1, 1, 1, 1}, 1.2), bench("acme", "b", {1, 1, 1, 1}, 0.9)});
  const RunReport now = base;
  CompareOptions o;
  o.min_peer_ratio = 0.95;
  const Comparison c = compare_runs(base, now, "base", "new", o);
  ASSERT_EQ(c.failures.size(), 1u);
  EXPECT_EQ(c.failures[0].gate, "peer_ratio");
  EXPECT_EQ(c.failures[0].case_id, "b");
}

TEST(CompareRuns, TheEnvironmentThatDiffersIsListed) {
  RunReport base = run_of({}), now = run_of({});
  now.environment["libraries"]["torch"] = "2.12";
  now.bench_settings = {{"sampling", {{"max_noise", 0.01}}}};
  const Comparison c = compare_runs(base, now, "base", "new", CompareOptions{});
  ASSERT_EQ(c.environment.size(), 2u);
  EXPECT_EQ(c.environment[0].what, "bench.sampling.max_noise");
  EXPECT_EQ(c.environment[1].what, "libraries.torch");
  EXPECT_EQ(c.environment[1].base, "2.11");
  EXPECT_EQ(c.environment[1].now, "2.12");
}

TEST(CompareRuns, TheGpusConditionsOfARowAreSetSideBySide) {
  BenchRecord cool = bench("acme", "g", {1.0, 1.0, 1.0, 1.0});
  BenchRecord hot = bench("acme", "g", {1.1, 1.1, 1.1, 1.1});
  for (const auto& [b, clock] : {std::pair{&cool, 1980u}, std::pair{&hot, 1410u}})
    for (auto& run : b->runs) {
      Sampling s;
      s.samples = 100;
      s.conditions.end = GpuReading{};
      s.conditions.end->sm_clock_mhz = clock;
      run.sampling = s;
    }
  hot.condition_flags = {"throttled"};
  const Comparison c = compare_runs(run_of({}, {cool}), run_of({}, {hot}), "base", "new", CompareOptions{});
  ASSERT_EQ(c.timings.size(), 1u);
  EXPECT_EQ(c.timings[0].base.sm_clock_mhz, 1980u);
  EXPECT_EQ(c.timings[0].now.sm_clock_mhz, 1410u);
  EXPECT_EQ(c.timings[0].now.conditions, (std::vector<std::string>{"throttled"}));
  EXPECT_EQ(c.timings[0].note, "GPU conditions differ: none -> throttled");
  EXPECT_EQ(c.timings[0].verdict, TimingVerdict::kSlower);  // the reason is shown; the gate still fails
}

TEST(CompareRuns, RunsOfAnotherSeedOrDeviceAreNotMatched) {
  RunReport base = run_of({}), now = run_of({});
  now.seed = 2;
  EXPECT_THROW(compare_runs(base, now, "base", "new", CompareOptions{}), InputError);
  now.seed = 1;
  now.environment["gpus"] = {{{"name", "NVIDIA H200"}}};
  EXPECT_THROW(compare_runs(base, now, "base", "new", CompareOptions{}), InputError);
  CompareOptions across;
  across.across_devices = true;
  EXPECT_NO_THROW(compare_runs(base, now, "base", "new", across));
}

// Spread over devices and ranks (--device-mode spread), a case ran once, on whichever device took
// it: it matches the same case of a run of one process; each device's own results (each) match
// device by device.
CaseResult placed(CaseResult r, int rank, int device) {
  r.rank = rank;
  r.device = DeviceTag{device, "host CPU", "node"};
  return r;
}

TEST(CompareRuns, ASpreadRunMatchesByCaseWhereverEachRan) {
  const RunReport single = run_of({result("acme", "a", Status::kPassed), result("acme", "b", Status::kPassed)});
  const RunReport spread = run_of({placed(result("acme", "a", Status::kPassed), 1, 0),
                                   placed(result("acme", "b", Status::kPassed), 0, 1)});
  const Comparison c = compare_runs(single, spread, "single", "spread", CompareOptions{});
  EXPECT_EQ(c.unchanged_statuses, 2);
  EXPECT_TRUE(c.failures.empty()) << c.failures.front().gate << " " << c.failures.front().case_id;

  const RunReport each = run_of({placed(result("acme", "a", Status::kPassed), 0, 0),
                                 placed(result("acme", "a", Status::kFailed), 0, 1)});
  const RunReport each_again = run_of({placed(result("acme", "a", Status::kPassed), 0, 0),
                                       placed(result("acme", "a", Status::kPassed), 0, 1)});
  const Comparison per_device = compare_runs(each, each_again, "each", "again", CompareOptions{});
  EXPECT_EQ(per_device.unchanged_statuses, 1) << "device 0 with device 0; device 1 changed";
}

TEST(CompareRuns, RunsWithNoCaseInCommonAreAnInputErrorNamingBothSuites) {
  RunReport base = run_of({result("acme", "a", Status::kPassed)}), now = run_of({result("acme", "b", Status::kPassed)});
  base.suite = "smoke";
  now.suite = "sweeps/rms_norm";
  try {
    compare_runs(base, now, "base", "new", CompareOptions{});
    ADD_FAILURE() << "no case in common was compared";
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("'base' (suite smoke) and 'new' (suite sweeps/rms_norm) have no case in common"),
              std::string::npos)
        << what;
  }
  now.results.push_back(result("acme", "a", Status::kPassed));  // one in common: a comparison
  EXPECT_NO_THROW(compare_runs(base, now, "base", "new", CompareOptions{}));
  EXPECT_NO_THROW(compare_runs(base, run_of({}), "base", "new", CompareOptions{})) << "an empty run lost every case";
}

TEST(CompareRuns, TimingsOnOneSideAreNeitherComparedNorPassed) {
  RunReport bench_run = run_of({result("acme", "a", Status::kPassed)}, {bench("acme", "a", {1, 1, 1, 1, 1}, 0.8)});
  bench_run.kind = "opcert-bench-report";
  const RunReport plain = run_of({result("acme", "a", Status::kPassed)});
  // The perf gate on by default is left off, and the notes say why.
  const RunReport& bench_side = bench_run;
  for (const auto& [base, now] : {std::pair{&bench_side, &plain}, std::pair{&plain, &bench_side}}) {
    const Comparison c = compare_runs(*base, *now, "base", "new", CompareOptions{});
    EXPECT_EQ(c.gates, (std::vector<std::string>{"alignment", "status"}));
    ASSERT_FALSE(c.notes.empty());
    EXPECT_NE(c.notes.front().find("no timing was compared"), std::string::npos) << c.notes.front();
  }
  // Asked for by a flag, it is an input error; asked for but off (--fail-on status), nothing to say.
  CompareOptions perf;
  perf.asked = {"perf"};
  EXPECT_THROW(compare_runs(bench_run, plain, "base", "new", perf), InputError);
  perf.fail_on = {"status"};
  EXPECT_NO_THROW(compare_runs(bench_run, plain, "base", "new", perf));
  // --min-peer-ratio judges the new run's timings: none there.
  CompareOptions peer;
  peer.fail_on = {"status"};
  peer.min_peer_ratio = 0.9;
  EXPECT_EQ(compare_runs(bench_run, plain, "base", "new", peer).gates, (std::vector<std::string>{"status"}));
  EXPECT_EQ(compare_runs(plain, bench_run, "base", "new", peer).failures.size(), 1u) << "0.8x the peer";
  peer.asked = {"peer_ratio"};
  EXPECT_THROW(compare_runs(bench_run, plain, "base", "new", peer), InputError);
}

TEST(CompareRuns, APerfGateWithNoRowItCanTestNeitherPassesNorIsListed) {
  // bench's default, one repetition a side: 40% slower, and no rank test can say so.
  const RunReport base = run_of({}, {bench("acme", "a", {1.0}), bench("acme", "b", {1.0})});
  const RunReport now = run_of({}, {bench("acme", "a", {1.4}), bench("acme", "b", {1.0})});
  const Comparison quiet = compare_runs(base, now, "base", "new", CompareOptions{});
  EXPECT_EQ(quiet.gates, (std::vector<std::string>{"alignment", "status"})) << "on by default only: left off";
  EXPECT_TRUE(quiet.failures.empty());
  bool said = false;
  for (const auto& n : quiet.notes) said = said || n.find("none of the 2 row(s) the perf gate judges") != std::string::npos;
  EXPECT_TRUE(said) << "the report says why perf judged nothing";
  for (const auto& n : quiet.notes)
    EXPECT_EQ(n.find("some rows have too few repetitions"), std::string::npos) << "said once, of all rows: " << n;
  CompareOptions asked;
  asked.asked = {"perf"};
  asked.max_slowdown = 0.03;
  try {
    compare_runs(base, now, "base", "new", asked);
    ADD_FAILURE() << "--max-slowdown over rows it cannot test is an input error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("1 and 1 repetitions"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("--benchmark_repetitions=5"), std::string::npos) << e.what();
  }
  // One row it can test is enough for the gate to judge, and to fail.
  const RunReport base5 = run_of({}, {bench("acme", "a", {1.0, 1.01, 0.99, 1.0, 1.02}), bench("acme", "b", {1.0})});
  const RunReport now5 = run_of({}, {bench("acme", "a", {1.4, 1.41, 1.39, 1.4, 1.42}), bench("acme", "b", {1.0})});
  const Comparison judged = compare_runs(base5, now5, "base", "new", asked);
  EXPECT_EQ(judged.gates, (std::vector<std::string>{"alignment", "perf", "status"}));
  EXPECT_TRUE(failure(judged, "perf", "a"));
}

TEST(CompareBackends, PairsEachCaseAndSummarisesPerOpAndDtype) {
  RunReport run = run_of({result("acme", "a", Status::kPassed, 1e-3, 0.5), result("torch", "a", Status::kPassed),
                          result("acme", "b", Status::kFailed), result("torch", "b", Status::kPassed)},
                         {bench("acme", "a", {1.0}), bench("torch", "a", {2.0}), bench("acme", "b", {1.0}),
                          bench("torch", "b", {8.0})});
  const Comparison c = compare_backends(run, "run", "acme", "torch", SideBy::kBackend);
  ASSERT_EQ(c.pairs.size(), 2u);
  EXPECT_EQ(*c.pairs[0].time_ratio, 2.0);
  ASSERT_EQ(c.pair_summaries.size(), 1u);
  EXPECT_NEAR(*c.pair_summaries[0].geomean_time_ratio, 4.0, 1e-12);  // sqrt(2 * 8)
  EXPECT_EQ(c.pair_summaries[0].passed_a, 1);
  EXPECT_EQ(c.pair_summaries[0].passed_b, 2);
  EXPECT_EQ(*c.pair_summaries[0].worst_alignment_a, 1.0);
  EXPECT_THROW(compare_backends(run, "run", "acme", "nvidia", SideBy::kBackend), InputError);
}

TEST(CompareBackends, TwoDevicesOfOneRunSideBySide) {
  // `--devices all` on two devices: device 1 fails case b; the peer's results carry no device.
  const auto on = [](int device, CaseResult r) {
    r.device = DeviceTag{device, "d" + std::to_string(device), "h", "UUID-" + std::to_string(device), ""};
    return r;
  };
  RunReport run = run_of({on(0, result("acme", "a", Status::kPassed)), on(0, result("acme", "b", Status::kPassed)),
                          on(1, result("acme", "a", Status::kPassed)), on(1, result("acme", "b", Status::kFailed)),
                          result("torch", "a", Status::kPassed)},
                         {bench("acme", "a", {1.0})});
  // Each implementation's result on a device is paired with its own on the other, not with another's.
  CaseResult other = on(1, result("acme", "a", Status::kError));
  other.impl_key = "acme.x.other";
  run.results.push_back(other);
  const Comparison c = compare_backends(run, "run", "0", "1", SideBy::kDevice);
  EXPECT_EQ(c.base_label, "device 0");
  EXPECT_EQ(c.new_label, "device 1");
  ASSERT_EQ(c.pairs.size(), 2u);
  EXPECT_EQ(c.pairs[0].case_id, "a");
  EXPECT_EQ(c.pairs[0].status_b, Status::kPassed);
  EXPECT_EQ(c.pairs[1].case_id, "b");
  EXPECT_EQ(c.pairs[1].status_a, Status::kPassed);
  EXPECT_EQ(c.pairs[1].status_b, Status::kFailed);
  EXPECT_FALSE(c.pairs[0].seconds_a) << "a benchmark names no device";
  ASSERT_EQ(c.pair_summaries.size(), 1u);
  EXPECT_EQ(c.pair_summaries[0].passed_a, 2);
  EXPECT_EQ(c.pair_summaries[0].passed_b, 1);
  try {
    compare_backends(run, "run", "0", "2", SideBy::kDevice);
    ADD_FAILURE() << "device 2 has no result";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("device '2' has no result in 'run' (it has: 0, 1"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace opcert
