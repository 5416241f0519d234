// bench/bench_protocol.h: what a bench worker measured reaches the runner exactly, and a garbled
// answer is an error naming the field.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "bench/bench_protocol.h"

namespace opcert {
namespace {

BenchRun repetition() {
  BenchRun r;
  r.name = "softmax.d2/cpu.softmax.rowwise/iterations:1/manual_time";
  r.run_name = r.name;
  r.family_index = 3;
  r.repetitions = 2;
  r.repetition_index = 1;
  r.iterations = 123;
  r.seconds = 1.0 / 3.0;  // not exact in decimal: must come back bit for bit
  r.cpu_seconds = 2.5e-7;
  r.counters = {{"gbps", 0.1 + 0.2}, {"speedup_vs_peer", std::numeric_limits<double>::infinity()}};
  Sampling s;
  s.samples = 123;
  s.noise = 0.004321;
  s.stopped_by = "noise";
  s.elapsed_s = 0.7;
  s.conditions.start = GpuReading{1980, 2619, 301.25, 41, 0x4};
  s.conditions.end = GpuReading{1755, std::nullopt, std::nullopt, 44, std::nullopt};
  r.sampling = s;
  return r;
}

TEST(BenchProtocol, AMeasurementComesBackExactly) {
  BenchMeasurement m;
  m.checked = true;
  m.timing_method = "events";
  m.library_call = "cublasLtMatmul";
  m.published_bytes = 4096;
  m.latest_mean_s = 1.0 / 7.0;
  m.runs = {repetition()};
  BenchRun median;
  median.name = "x_median";
  median.aggregate = "median";
  median.counters = {{"gbps", std::nan("")}};
  m.runs.push_back(median);
  m.conditions = {{"source", "nvml"}};

  const BenchMeasurement back =
      bench_measurement_from_json(nlohmann::json::parse(bench_measurement_json(m).dump()));
  EXPECT_TRUE(back.checked);
  EXPECT_EQ(back.timing_method, "events");
  EXPECT_EQ(back.library_call, "cublasLtMatmul");
  EXPECT_EQ(back.published_bytes, 4096u);
  EXPECT_EQ(back.latest_mean_s, m.latest_mean_s);
  EXPECT_EQ(back.conditions, m.conditions);
  ASSERT_EQ(back.runs.size(), 2u);
  const BenchRun& r = back.runs[0];
  EXPECT_EQ(r.name, m.runs[0].name);
  EXPECT_EQ(r.family_index, 3);
  EXPECT_EQ(r.repetition_index, 1);
  EXPECT_EQ(r.iterations, 123);
  EXPECT_EQ(r.seconds, m.runs[0].seconds);
  EXPECT_EQ(r.cpu_seconds, m.runs[0].cpu_seconds);
  EXPECT_EQ(r.counters, m.runs[0].counters);
  ASSERT_TRUE(r.sampling);
  EXPECT_EQ(r.sampling->noise, 0.004321);
  EXPECT_EQ(r.sampling->conditions.start->clock_reasons, 0x4u);
  EXPECT_EQ(r.sampling->conditions.start->power_w, 301.25);
  EXPECT_FALSE(r.sampling->conditions.end->memory_clock_mhz);
  EXPECT_EQ(back.runs[1].aggregate, "median");
  EXPECT_TRUE(std::isnan(back.runs[1].counters.at("gbps")));
  EXPECT_FALSE(back.runs[1].sampling);
}

TEST(BenchProtocol, SettingsAndRequestsComeBack) {
  BenchWorkerSettings s;
  s.sampling.fixed_samples = 100;
  s.sampling.max_noise = 0.01;
  s.cold_l2 = true;
  s.benchmark_flags = {"--benchmark_repetitions=3"};
  const BenchWorkerSettings back = bench_worker_settings_from_json(bench_worker_settings_json(s));
  EXPECT_EQ(back.sampling.fixed_samples, 100);
  EXPECT_EQ(back.sampling.max_noise, 0.01);
  EXPECT_EQ(back.sampling.min_time_s, s.sampling.min_time_s);
  EXPECT_TRUE(back.cold_l2);
  EXPECT_EQ(back.benchmark_flags, s.benchmark_flags);

  const BenchRequest request{true, "h200", 2.5e-6, 0.0, true};
  const BenchRequest r = bench_request_from_json(bench_request_json(request));
  EXPECT_TRUE(r.copy_baseline);
  EXPECT_EQ(r.platform, "h200");
  EXPECT_EQ(r.peer_mean_s, 2.5e-6);
  EXPECT_EQ(r.copy_mean_s, 0.0);
  EXPECT_TRUE(r.support_only);
}

TEST(BenchProtocol, AGarbledMeasurementNamesItsField) {
  nlohmann::json doc = bench_measurement_json(BenchMeasurement{});
  doc["published_bytes"] = "many";
  try {
    bench_measurement_from_json(doc);
    FAIL() << "a string for published_bytes was taken";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("published_bytes"), std::string::npos) << e.what();
  }
  doc.erase("published_bytes");
  EXPECT_THROW(bench_measurement_from_json(doc), std::runtime_error);
  EXPECT_THROW(bench_measurement_from_json(nlohmann::json::array()), std::runtime_error);
}

}  // namespace
}  // namespace opcert
