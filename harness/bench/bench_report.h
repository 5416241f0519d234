// What `opcert bench` leaves in --out: bench.json (Google Benchmark's own JSON, so its compare
// tool reads it), report.json (the report of reports/schema/report.schema.json with kind
// "opcert-bench-report": environment, backends, the one check per case, and a record per
// benchmark), measurements.jsonl (a line per benchmark as it finishes, so an interrupted run keeps
// what it measured) and results.jsonl (the checks, as `opcert run` writes them).
#pragma once

#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "bench/bench_job.h"
#include "check/suite.h"
#include "reports/run_report.h"
#include "run/conformance_runner.h"

namespace opcert {

struct BenchSettings;

/// One benchmark's record in report.json and measurements.jsonl.
nlohmann::json bench_record_json(const BenchJob& job, const std::vector<BenchJob>& jobs);

/// measurements.jsonl, one flushed line per finished benchmark.
class MeasurementStream {
 public:
  static constexpr const char* kFileName = "measurements.jsonl";
  explicit MeasurementStream(const std::filesystem::path& out_dir);
  ~MeasurementStream();
  MeasurementStream(const MeasurementStream&) = delete;
  MeasurementStream& operator=(const MeasurementStream&) = delete;
  /// Throws std::runtime_error naming the file when the write fails.
  void append(const BenchJob& job, const std::vector<BenchJob>& jobs);

 private:
  std::filesystem::path path_;
  std::FILE* file_ = nullptr;
};

struct BenchReportInputs {
  const Suite* suite = nullptr;
  const BenchSettings* settings = nullptr;
  const std::vector<RunTarget>* targets = nullptr;
  const std::vector<BenchJob>* jobs = nullptr;
  const std::vector<CaseResult>* skipped = nullptr;  ///< unsupported (SKIPPED) or unqueryable (ERROR)
  std::string started_at, finished_at;
  int exit_code = 0;
};

/// The fields of a bench's report.json that come from its settings, suite and backends (the
/// results, ranks and `complete` are the caller's).
RunReport bench_report_header(const BenchSettings& s, const Suite& suite, const std::vector<RunTarget>& targets,
                              const std::string& started_at, const std::string& finished_at, int exit_code);

/// The report.json document.
nlohmann::json bench_report_json(const BenchReportInputs& in);

/// Moves Google Benchmark's JSON from `json_tmp` to bench.json (when it wrote one) and writes
/// report.json atomically. Throws std::runtime_error naming the path on failure.
void write_bench_outputs(const BenchReportInputs& in, const std::filesystem::path& json_tmp);

/// After the table: what was not benchmarked and why, what failed, and where the files are.
void print_bench_footer(const BenchReportInputs& in, std::FILE* out);

}  // namespace opcert
