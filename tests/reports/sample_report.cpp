#include "sample_report.h"

#include <cmath>

#include "reports/alignment.h"

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

}  // namespace opcert::test
