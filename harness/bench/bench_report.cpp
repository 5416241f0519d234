#include "bench/bench_report.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <system_error>

#include "bench/bench_runner.h"
#include "bench/roofline.h"
#include "bench/table_reporter.h"
#include "reports/alignment.h"
#include "reports/json_report_writer.h"
#include "reports/number_format.h"
#include "reports/report_writer.h"

namespace opcert {
namespace {

using nlohmann::json;

json string_or_null(const std::string& s) { return s.empty() ? json(nullptr) : json(s); }

}  // namespace

json bench_record_json(const BenchJob& job, const std::vector<BenchJob>& jobs) {
  json repetitions = json::array();
  json aggregates = json::object();
  for (const auto& r : job.reported) {
    if (r.aggregate.empty())
      repetitions.push_back({{"iterations", r.iterations}, {"seconds", json_number(r.seconds)}});
    else
      aggregates[r.aggregate] = json_number(r.seconds);
  }
  std::optional<double> t;
  if (job.error.empty()) t = job.typical_seconds();
  std::optional<double> tflops, gbps, pct;
  if (t && *t > 0) {
    if (job.work.flops > 0) tflops = job.work.flops / *t / 1e12;
    if (job.work.bytes > 0) gbps = job.work.bytes / *t / 1e9;
    if (job.platform) pct = roofline_percent(job.work, job.platform->peaks, *t);
  }
  return {{"name", job.name},
          {"backend", job.backend->name()},
          {"impl_key", job.impl_key},
          {"case_id", job.test_case->id},
          {"op", job.test_case->op},
          {"peer", job.peer},
          {"copy_baseline", job.copy_baseline},
          {"check", job.check ? json(std::string(status_name(job.check->status))) : json(nullptr)},
          {"error", string_or_null(job.error)},
          {"timing", string_or_null(job.timing_method)},
          {"flops", json_number(job.work.flops)},
          {"bytes", json_number(job.work.bytes)},
          {"compute_dtype", string_or_null(job.work.compute_dtype)},
          {"platform", job.platform ? json(job.platform->name) : json(nullptr)},
          {"repetitions", repetitions},
          {"aggregates", aggregates},
          {"seconds", json_number(t)},
          {"spread", json_number(job.error.empty() ? job.spread() : std::nullopt)},
          {"tflops", json_number(tflops)},
          {"gbps", json_number(gbps)},
          {"pct_peak", json_number(pct)},
          {"speedup_vs_torch", json_number(job.error.empty() ? speedup_vs_peer(job, jobs) : std::nullopt)},
          {"pct_of_copy", json_number(percent_of_copy(job, jobs))}};
}

MeasurementStream::MeasurementStream(const std::filesystem::path& out_dir) : path_(out_dir / kFileName) {
  file_ = std::fopen(path_.c_str(), "w");
  if (file_ == nullptr) throw std::runtime_error(fmt::format("cannot write {}: {}", path_.string(), std::strerror(errno)));
}

MeasurementStream::~MeasurementStream() {
  if (file_ != nullptr) std::fclose(file_);
}

void MeasurementStream::append(const BenchJob& job, const std::vector<BenchJob>& jobs) {
  const std::string line = dump_json(bench_record_json(job, jobs)) + "\n";
  if (std::fputs(line.c_str(), file_) < 0 || std::fflush(file_) != 0)
    throw std::runtime_error(fmt::format("cannot write {}: {}", path_.string(), std::strerror(errno)));
}

RunReport bench_report_header(const BenchSettings& s, const Suite& suite, const std::vector<RunTarget>& targets,
                              const std::string& started_at, const std::string& finished_at, int exit_code) {
  RunReport report;
  report.opcert_version = s.environment.opcert_version;
  report.command_line = s.command_line;
  report.suite = s.suite_asked;
  report.suite_path = suite.path;
  report.suite_sha256 = suite.sha256;
  report.seed = s.seed;
  report.platform = s.platform;
  report.started_at = started_at;
  report.finished_at = finished_at;
  report.exit_code = exit_code;
  report.environment = capture_environment(s.environment);
  for (const auto& t : targets) report.backends.push_back(backend_record(t));
  return report;
}

json bench_report_json(const BenchReportInputs& in) {
  const BenchSettings& s = *in.settings;
  RunReport report = bench_report_header(s, *in.suite, *in.targets, in.started_at, in.finished_at, in.exit_code);
  for (const auto& job : *in.jobs)
    if (job.check) report.results.push_back(*job.check);
  for (const auto& r : *in.skipped) report.results.push_back(r);
  fill_alignment(report.results, "torch");

  json doc = report_to_json(report);
  doc["kind"] = "opcert-bench-report";
  json benchmarks = json::array();
  for (const auto& job : *in.jobs) benchmarks.push_back(bench_record_json(job, *in.jobs));
  doc["benchmarks"] = benchmarks;
  doc["bench_settings"] = {{"cold_l2", s.cold_l2}, {"copy_baseline", s.copy_baseline}, {"benchmark_flags", s.benchmark_flags}};
  return doc;
}

void write_bench_outputs(const BenchReportInputs& in, const std::filesystem::path& json_tmp) {
  const std::filesystem::path out_dir = in.settings->out_dir;
  std::error_code ec;
  if (std::filesystem::exists(json_tmp, ec)) {
    std::filesystem::rename(json_tmp, out_dir / "bench.json", ec);
    if (ec) throw std::runtime_error(fmt::format("cannot write {}: {}", (out_dir / "bench.json").string(), ec.message()));
  }
  write_file_atomically(out_dir / "report.json", dump_json(bench_report_json(in), 2) + "\n");
}

void print_bench_footer(const BenchReportInputs& in, std::FILE* out) {
  for (const auto& r : *in.skipped)
    fmt::print(out, "not benchmarked: {} on {}: {} ({})\n", r.case_id, r.impl_key, status_name(r.status), r.message);
  int failed = 0;
  for (const auto& job : *in.jobs)
    if (!job.peer && (!job.error.empty() || (job.check && job.check->status != Status::kPassed &&
                                             job.check->status != Status::kMistrusted)))
      ++failed;
  if (failed > 0)
    fmt::print(out, "{} benchmark(s) of a selected backend failed their check or their timing: their figures are "
                    "not to be trusted\n", failed);
  fmt::print(out, "{} benchmark(s); bench.json, report.json and measurements.jsonl in {}\n", in.jobs->size(),
             in.settings->out_dir.string());
}

}  // namespace opcert
