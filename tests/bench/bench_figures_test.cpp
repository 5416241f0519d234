// The figures `opcert bench` derives from what it measured: roofline percentages, the platform
// whose peaks apply, the median and spread of repetitions, and the speedup over the peer.
#include <gtest/gtest.h>

#include "bench/bench_job.h"
#include "bench/roofline.h"
#include "model/bench_record.h"

namespace opcert {
namespace {

PeakFigures h100_like() {
  PeakFigures p;
  p.tflops["bf16"] = 1000;
  p.memory_gbps = 2000;
  return p;
}

TEST(Roofline, ComputeBoundOpIsMeasuredAgainstItsDtypePeak) {
  WorkModel w{2e12, 1e9, "bf16", true};  // 2 TFLOP at 1000 TFLOP/s: 2 ms; 1 GB at 2000 GB/s: 0.5 ms
  EXPECT_DOUBLE_EQ(*roofline_percent(w, h100_like(), 4e-3), 50.0);
  w.compute_dtype = "fp8_e4m3fn";  // no peak for it: no percentage rather than a wrong one
  EXPECT_FALSE(roofline_percent(w, h100_like(), 4e-3));
}

TEST(Roofline, MemoryBoundOpIsMeasuredAgainstBandwidth) {
  const WorkModel w{0, 4e9, "", false};  // 4 GB at 2000 GB/s: 2 ms
  EXPECT_DOUBLE_EQ(*roofline_percent(w, h100_like(), 2.5e-3), 80.0);
  EXPECT_FALSE(roofline_percent(w, PeakFigures{}, 2.5e-3));
  EXPECT_FALSE(roofline_percent(w, h100_like(), 0.0));
}

TEST(Roofline, TheLimitingResourceSetsTheBound) {
  // A skinny GEMM: 2 GFLOP (2 us at peak) but 4 GB to move (2 ms): the memory time bounds it.
  const WorkModel w{2e9, 4e9, "bf16", true};
  EXPECT_DOUBLE_EQ(*roofline_percent(w, h100_like(), 4e-3), 50.0);
}

TEST(Roofline, PlatformIsTheRequestedOneElseTheOneNamingTheDevice) {
  PlatformCatalog catalog;
  PlatformConfig h100;
  h100.name = "cuda-h100";
  h100.backend = "cuda";
  h100.device = "NVIDIA H100 80GB HBM3";
  catalog.merge(h100);
  PlatformConfig other;
  other.name = "other";
  other.backend = "x";
  catalog.merge(other);
  EXPECT_EQ(platform_for_device(catalog, "", "cuda:0 NVIDIA H100 80GB HBM3")->name, "cuda-h100");
  EXPECT_EQ(platform_for_device(catalog, "", "NVIDIA A100"), nullptr);
  EXPECT_EQ(platform_for_device(catalog, "other", "NVIDIA H100 80GB HBM3")->name, "other");
}

BenchRun repetition(double seconds) {
  BenchRun r;
  r.iterations = 10;
  r.seconds = seconds;
  return r;
}

BenchRun aggregate(const char* name, double seconds) {
  BenchRun r = repetition(seconds);
  r.aggregate = name;
  return r;
}

BenchJob job_with(std::vector<double> repetitions) {
  BenchJob job;
  for (double s : repetitions) job.runs.push_back(repetition(s));
  return job;
}

TEST(BenchJobFigures, TypicalIsTheMedianAndSpreadTheWorstDistanceFromIt) {
  const BenchJob one = job_with({2.0});
  EXPECT_DOUBLE_EQ(*one.typical_seconds(), 2.0);
  EXPECT_FALSE(repetition_spread(one.runs));
  const BenchJob three = job_with({1.0, 1.2, 0.9});
  EXPECT_DOUBLE_EQ(*three.typical_seconds(), 1.0);
  EXPECT_NEAR(*repetition_spread(three.runs), 0.2, 1e-12);
  const BenchJob four = job_with({1.0, 3.0, 2.0, 4.0});
  EXPECT_DOUBLE_EQ(*four.typical_seconds(), 2.5);
  EXPECT_FALSE(BenchJob{}.typical_seconds());
}

TEST(BenchJobFigures, HostBoundIsTheMedianShareAtOrOverTheBound) {
  const auto sampled = [](std::vector<std::optional<double>> shares) {
    std::vector<BenchRun> runs;
    for (const auto& share : shares) {
      BenchRun r = repetition(1.0);
      r.sampling = Sampling{.host_share = share};
      runs.push_back(r);
    }
    return runs;
  };
  EXPECT_TRUE(is_host_bound(sampled({0.2, 0.95, 1.1})));
  EXPECT_FALSE(is_host_bound(sampled({0.2, 0.5, 1.1})));
  EXPECT_TRUE(is_host_bound(sampled({0.7, 1.2})));   // an even count: the middle two's mean, 0.95
  EXPECT_FALSE(is_host_bound(sampled({0.7, 1.0})));  // 0.85
  EXPECT_TRUE(is_host_bound(sampled({std::nullopt, 0.95})));  // only repetitions with a share count
  EXPECT_FALSE(is_host_bound(sampled({std::nullopt})));
  EXPECT_FALSE(is_host_bound({repetition(1.0)}));
}

TEST(BenchJobFigures, OnlyAggregatesReportedFallsBackToTheMedianAggregate) {
  BenchJob job;
  job.runs = {aggregate("mean", 2.0), aggregate("median", 1.5), aggregate("cv", 0.1)};
  EXPECT_DOUBLE_EQ(*job.typical_seconds(), 1.5);
}

TEST(BenchJobFigures, SpeedupIsThePeersTimeOverOurs) {
  std::vector<BenchJob> jobs = {job_with({3.0}), job_with({1.5}), job_with({1.0})};
  jobs[1].peer_job = 0;
  EXPECT_DOUBLE_EQ(*speedup_vs_peer(jobs[1], jobs), 2.0);
  EXPECT_FALSE(speedup_vs_peer(jobs[2], jobs));  // no peer on that case
  jobs[0].runs.clear();                           // the peer was not measured
  EXPECT_FALSE(speedup_vs_peer(jobs[1], jobs));
}

TEST(BenchJobFigures, AJobWhoseTimingFailedHasNoTypicalTimeAndNoSpeedup) {
  std::vector<BenchJob> jobs = {job_with({3.0}), job_with({1.5})};
  jobs[1].peer_job = 0;
  jobs[1].error = "launch failed";
  EXPECT_FALSE(jobs[1].typical_seconds());
  EXPECT_FALSE(speedup_vs_peer(jobs[1], jobs));
}

}  // namespace
}  // namespace opcert
