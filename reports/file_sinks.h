// The sinks that write the output directory (docs/CLI.md, "Outputs"): results.jsonl and
// measurements.jsonl as events come (flushed per line, so a killed run keeps what it measured),
// and each report file at the end (report.json, junit.xml, summary.md, bench.json), atomically.
#pragma once

#include <filesystem>
#include <memory>

#include "reports/report_writer.h"
#include "reports/result_sink.h"

namespace opcert {

/// results.jsonl: one CaseResult a line (model/case_result_json.h). Opens the file now: throws
/// std::runtime_error naming it when --out cannot be written. `append`: a resumed run, which keeps
/// the lines there (a partial last one, from a killed writer, is cut off).
std::unique_ptr<ResultSink> make_results_jsonl_sink(const std::filesystem::path& out_dir, bool append = false);

/// measurements.jsonl: one benchmark record a line (reports/bench_record_json.h). Opens it now;
/// `append`: a resumed bench's.
inline constexpr const char* kMeasurementsJsonlFileName = "measurements.jsonl";
std::unique_ptr<ResultSink> make_measurements_jsonl_sink(const std::filesystem::path& out_dir, bool append = false);

/// The file `writer` writes, written when the run finishes.
std::unique_ptr<ResultSink> make_report_file_sink(std::unique_ptr<ReportWriter> writer, std::filesystem::path out_dir);

/// bench.json: Google Benchmark's JSON shape (context, and a run per repetition and aggregate of
/// every timed benchmark), from RunReport::benchmarks and bench_context.
std::unique_ptr<ReportWriter> make_bench_json_writer();

}  // namespace opcert
