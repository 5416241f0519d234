#include "reports/output_sets.h"

#include "reports/file_sinks.h"
#include "reports/terminal_sinks.h"

namespace opcert {
namespace {

void add_report_files(ResultStream& stream, const std::filesystem::path& out_dir,
                      std::vector<std::unique_ptr<ReportWriter>> writers) {
  for (auto& w : writers) stream.add(make_report_file_sink(std::move(w), out_dir));
}

}  // namespace

void add_conformance_outputs(ResultStream& stream, const std::filesystem::path& out_dir, ProgressMode progress,
                             std::size_t jobs, bool resumed, bool profile) {
  stream.add(make_results_jsonl_sink(out_dir, resumed));
  stream.add(make_progress_sink(progress, jobs));
  add_report_files(stream, out_dir, all_report_writers());
  stream.add(make_summary_table_sink(out_dir));
  if (profile) stream.add(make_profile_sink());
}

void add_bench_outputs(ResultStream& stream, const std::filesystem::path& out_dir, const std::vector<PlannedRow>& planned,
                       const BenchTableLayout& layout, bool resumed) {
  stream.add(make_results_jsonl_sink(out_dir, resumed));
  stream.add(make_measurements_jsonl_sink(out_dir, resumed));
  stream.add(make_report_file_sink(make_json_report_writer(), out_dir));
  stream.add(make_report_file_sink(make_bench_json_writer(), out_dir));
  stream.add(make_bench_table_sink(planned, layout, out_dir));
}

void add_collective_bench_outputs(ResultStream& stream, const std::filesystem::path& out_dir) {
  stream.add(make_results_jsonl_sink(out_dir));
  stream.add(make_measurements_jsonl_sink(out_dir));
  stream.add(make_report_file_sink(make_json_report_writer(), out_dir));
  stream.add(make_report_file_sink(make_bench_json_writer(), out_dir));
  stream.add(make_collective_table_sink(out_dir));
}

}  // namespace opcert
