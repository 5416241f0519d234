#include "reports/file_sinks.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <stdexcept>

#include "reports/bench_record_json.h"
#include "reports/number_format.h"
#include "reports/results_jsonl.h"

namespace opcert {
namespace {

class ResultsJsonlSink final : public ResultSink {
 public:
  ResultsJsonlSink(const std::filesystem::path& out_dir, bool append)
      : file_(out_dir, append ? ResultsJsonl::Mode::kAppend : ResultsJsonl::Mode::kTruncate) {}
  std::string name() const override { return ResultsJsonl::kFileName; }
  void case_done(const CaseResult& result, bool) override { file_.append(result); }

 private:
  ResultsJsonl file_;
};

class MeasurementsJsonlSink final : public ResultSink {
 public:
  MeasurementsJsonlSink(const std::filesystem::path& out_dir, bool append) : path_(out_dir / kMeasurementsJsonlFileName) {
    file_ = std::fopen(path_.c_str(), append ? "a" : "w");
    if (file_ == nullptr) throw std::runtime_error(fmt::format("cannot write {}: {}", path_.string(), std::strerror(errno)));
  }
  ~MeasurementsJsonlSink() override { std::fclose(file_); }
  MeasurementsJsonlSink(const MeasurementsJsonlSink&) = delete;
  MeasurementsJsonlSink& operator=(const MeasurementsJsonlSink&) = delete;

  std::string name() const override { return kMeasurementsJsonlFileName; }
  void benchmark_done(const BenchRecord& record) override {
    const std::string line = dump_json(bench_record_json(record)) + "\n";
    if (std::fputs(line.c_str(), file_) < 0 || std::fflush(file_) != 0)
      throw std::runtime_error(fmt::format("cannot write {}: {}", path_.string(), std::strerror(errno)));
  }

 private:
  std::filesystem::path path_;
  std::FILE* file_ = nullptr;
};

class ReportFileSink final : public ResultSink {
 public:
  ReportFileSink(std::unique_ptr<ReportWriter> writer, std::filesystem::path out_dir)
      : writer_(std::move(writer)), out_dir_(std::move(out_dir)) {}
  std::string name() const override { return writer_->file_name(); }
  void run_finished(const RunReport& report) override { writer_->write(report, out_dir_); }

 private:
  std::unique_ptr<ReportWriter> writer_;
  std::filesystem::path out_dir_;
};

class BenchJsonWriter final : public ReportWriter {
 public:
  std::string file_name() const override { return "bench.json"; }
  void write(const RunReport& report, const std::filesystem::path& out_dir) const override {
    nlohmann::json runs = nlohmann::json::array();
    for (const auto& record : report.benchmarks)
      for (auto& run : google_benchmark_runs_json(record)) runs.push_back(std::move(run));
    const nlohmann::json doc = {
        {"context", report.bench_context.is_object() ? report.bench_context : nlohmann::json::object()},
        {"benchmarks", runs}};
    write_file_atomically(out_dir / file_name(), dump_json(doc, 2) + "\n");
  }
};

}  // namespace

std::unique_ptr<ResultSink> make_results_jsonl_sink(const std::filesystem::path& out_dir, bool append) {
  return std::make_unique<ResultsJsonlSink>(out_dir, append);
}

std::unique_ptr<ResultSink> make_measurements_jsonl_sink(const std::filesystem::path& out_dir, bool append) {
  return std::make_unique<MeasurementsJsonlSink>(out_dir, append);
}

std::unique_ptr<ResultSink> make_report_file_sink(std::unique_ptr<ReportWriter> writer, std::filesystem::path out_dir) {
  return std::make_unique<ReportFileSink>(std::move(writer), std::move(out_dir));
}

std::unique_ptr<ReportWriter> make_bench_json_writer() { return std::make_unique<BenchJsonWriter>(); }

}  // namespace opcert
