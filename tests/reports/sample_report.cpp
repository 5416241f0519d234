#include "sample_report.h"

#include <cmath>

#include "reports/alignment.h"
#include "reports/json_report_writer.h"

namespace opcert::test {

TensorMetrics metrics(const std::string& name, double rmse) {
  TensorMetrics m;
  m.name = name;
  m.checked = m.total = 64;
  m.rmse = rmse;
  m.max_abs = 2 * rmse;
  m.mean_abs = rmse / 2;
  m.error_ratio = 0.5;
  m.worst = {7, 1.5, 1.25, 0.01};
  return m;
}

CaseResult result(const std::string& backend, const std::string& op, const std::string& case_id, Status status,
                  std::optional<double> rmse) {
  CaseResult r;
  r.backend = backend;
  r.impl_key = backend + "." + op;
  r.suite = "smoke";
  r.case_id = case_id;
  r.op = op;
  r.dtype = "fp32";
  r.status = status;
  r.duration_ms = 250.0;
  r.repro = "opcert run --backend " + backend + " --suite smoke --filter '^" + case_id + "$' --seed 7";
  if (rmse) r.metrics.push_back(metrics(op == "softmax" ? "y" : "C", *rmse));
  return r;
}

RunReport sample_report() {
  RunReport report;
  report.opcert_version = "0.1.0";
  report.command_line = "opcert run --suite smoke --seed 7";
  report.suite = "smoke";
  report.suite_path = "/opt/opcert/suites/smoke.json";
  report.suite_sha256 = std::string(64, 'a');
  report.seed = 7;
  report.platform = "h100-sxm";
  report.started_at = "2024-05-01T12:00:00Z";
  report.finished_at = "2024-05-01T12:01:00Z";
  report.environment = {{"host", "node-1"}, {"git_commit", "abc1234"}, {"gpus", nullptr}, {"libraries", {{"torch", "2.3.0"}}}};
  report.backends = {{"cpu", "1.0", "built-in", "", "", false},
                     {"acme", "3.2", "plugin", "/opt/acme/libacme.so", std::string(64, 'b'), false},
                     {"torch", "2.3.0", "built-in", "", "", true}};
  auto& rs = report.results;
  rs.push_back(result("cpu", "gemm", "g1", Status::kPassed, 0.5));
  rs.push_back(result("cpu", "gemm", "g2", Status::kFailed, std::nan("")));
  rs.back().message = kHostileMessage;
  rs.back().metrics.front().max_rel = INFINITY;
  rs.back().metrics.front().mismatches = 3;
  rs.push_back(result("cpu", "gemm", "g3", Status::kMistrusted, 0.0));
  rs.back().message = "output is 98% zeros";
  rs.push_back(result("cpu", "softmax", "s1", Status::kSkipped));
  rs.back().message = "softmax over N > 65536 unsupported";
  rs.push_back(result("cpu", "softmax", "s2", Status::kCrashed));
  rs.back().message = "worker died: signal 11 (SIGSEGV)";
  rs.push_back(result("acme", "gemm", "g1", Status::kPassed, 0.1));
  rs.push_back(result("acme", "gemm", "g2", Status::kTimeout));
  rs.back().message = "ran past 60 s";
  rs.push_back(result("acme", "gemm", "g3", Status::kError));
  rs.back().message = "acme: out of memory";
  rs.push_back(result("torch", "gemm", "g1", Status::kPassed, 0.2));
  rs.push_back(result("torch", "gemm", "g2", Status::kPassed, 0.25));
  rs.push_back(result("torch", "gemm", "g3", Status::kPassed, 0.0));
  fill_alignment(rs, "torch");
  report.exit_code = 1;
  return report;
}

RunReport sample_bench_report() {
  RunReport report = sample_report();
  report.kind = kBenchReportKind;
  report.results.resize(1);
  const auto reading = [](uint32_t sm, double watts, uint64_t reasons) {
    GpuReading r;
    r.sm_clock_mhz = sm;
    r.memory_clock_mhz = 2619;
    r.power_w = watts;
    r.temperature_c = 61;
    r.clock_reasons = reasons;
    return r;
  };
  BenchRecord b;
  b.name = "g1/acme.gemm";
  b.backend = "acme";
  b.impl_key = "acme.gemm";
  b.case_id = "g1";
  b.op = "gemm";
  b.check = Status::kPassed;
  b.timing = "events";
  b.flops = 2e12;
  b.bytes = 1e9;
  b.compute_dtype = "bf16";
  for (int i = 0; i < 2; ++i) {
    BenchRun run;
    run.name = run.run_name = "g1/acme.gemm/manual_time";
    run.repetitions = 2;
    run.repetition_index = i;
    Sampling s;
    s.samples = i == 0 ? 412 : 9000;
    run.iterations = s.samples;
    run.seconds = i == 0 ? 3.0e-3 : 3.2e-3;
    s.noise = i == 0 ? 0.002 : 0.008;
    s.stopped_by = i == 0 ? "noise" : "time_limit";
    s.elapsed_s = i == 0 ? 1.3 : 5.0;
    s.conditions.start = reading(i == 0 ? 1980 : 1755, i == 0 ? 640.5 : 699.8, i == 0 ? 0 : clock_reason::kSwPowerCap);
    s.conditions.end = reading(1755, 120.0, clock_reason::kGpuIdle | clock_reason::kSwPowerCap);
    run.sampling = s;
    b.runs.push_back(run);
  }
  b.seconds = 3.1e-3;
  b.spread = 0.2e-3 / 3.1e-3;
  b.tflops = 2e12 / 3.1e-3 / 1e12;
  b.noise = 0.008;
  b.noise_limited = true;
  std::vector<SamplingConditions> conditions;
  for (const auto& run : b.runs) conditions.push_back(run.sampling->conditions);
  b.condition_flags = condition_flags(conditions);
  report.benchmarks.push_back(b);
  report.bench_settings = {
      {"cold_l2", false},
      {"copy_baseline", false},
      {"benchmark_flags", {"--benchmark_repetitions=2"}},
      {"sampling",
       {{"min_time_s", 0.5}, {"fixed_samples", nullptr}, {"max_noise", 0.005}, {"max_time_s", 5.0},
        {"min_samples", 10}, {"warmup_s", 0.05}, {"warmup_launches", 3}}},
      {"conditions",
       {{"source", "nvml"},
        {"driver_version", "580.159.04"},
        {"nvml_version", "13.580.159.04"},
        {"devices",
         {{{"cuda_index", 0}, {"name", "NVIDIA H100 80GB HBM3"}, {"uuid", "GPU-0"}, {"max_sm_clock_mhz", 1980},
           {"max_memory_clock_mhz", 2619}, {"power_limit_w", 700.0}}}}}}};
  return report;
}

}  // namespace opcert::test
