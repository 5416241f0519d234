#include "bench/table_reporter.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "bench/roofline.h"
#include "model/status.h"

namespace opcert {
namespace {

const std::vector<std::string> kHeader = {"op", "case", "impl", "time", "TFLOP/s", "GB/s", "% peak", "vs torch", "check"};
const std::string kCopyColumn = "% copy";  // with --copy-baseline, before "check"
constexpr std::size_t kMaxCaseWidth = 56;

// Three significant digits, without an exponent down to 0.001.
std::string three_digits(double v) {
  if (v >= 100) return fmt::format("{:.0f}", v);
  if (v >= 10) return fmt::format("{:.1f}", v);
  if (v >= 1 || v == 0) return fmt::format("{:.2f}", v);
  if (v >= 0.001) return fmt::format("{:.3f}", v);
  return fmt::format("{:.2e}", v);
}

std::string check_cell(const BenchJob& job) {
  if (!job.error.empty()) return "ERROR: " + job.error;
  if (job.copy_baseline) return "(copy baseline)";
  if (!job.check) return "-";
  std::string cell(status_name(job.check->status));
  if (job.check->status != Status::kPassed && !job.check->message.empty()) cell += ": " + job.check->message;
  return cell;
}

}  // namespace

std::string format_duration(double seconds) {
  if (seconds < 1e-6) return three_digits(seconds * 1e9) + " ns";
  if (seconds < 1e-3) return three_digits(seconds * 1e6) + " us";
  if (seconds < 1) return three_digits(seconds * 1e3) + " ms";
  return three_digits(seconds) + " s";
}

std::optional<double> speedup_vs_peer(const BenchJob& job, const std::vector<BenchJob>& jobs) {
  if (!job.peer_job) return std::nullopt;
  const auto mine = job.typical_seconds();
  const auto theirs = jobs.at(*job.peer_job).typical_seconds();
  if (!mine || !theirs || *mine <= 0) return std::nullopt;
  return *theirs / *mine;
}

std::vector<std::string> bench_header(bool copy_column) {
  std::vector<std::string> header = kHeader;
  if (copy_column) header.insert(header.end() - 1, kCopyColumn);
  return header;
}

std::vector<std::string> bench_row_cells(const BenchJob& job, const std::vector<BenchJob>& jobs, bool copy_column) {
  std::string case_id = job.test_case->id;
  if (case_id.size() > kMaxCaseWidth) case_id = case_id.substr(0, kMaxCaseWidth - 3) + "...";
  std::vector<std::string> cells = {job.test_case->op, case_id, job.impl_key};
  const auto t = job.typical_seconds();
  if (!t || !job.error.empty()) {
    cells.insert(cells.end(), {"-", "-", "-", "-", "-"});
    if (copy_column) cells.push_back("-");
  } else {
    std::string time = format_duration(*t);
    if (const auto s = job.spread()) time += fmt::format(" ±{:.0f}%", 100 * *s);
    cells.push_back(time);
    cells.push_back(job.work.flops > 0 ? three_digits(job.work.flops / *t / 1e12) : "-");
    cells.push_back(job.work.bytes > 0 ? three_digits(job.work.bytes / *t / 1e9) : "-");
    std::optional<double> pct;
    if (job.platform) pct = roofline_percent(job.work, job.platform->peaks, *t);
    cells.push_back(pct ? fmt::format("{:.1f}%", *pct) : "-");
    const auto speedup = speedup_vs_peer(job, jobs);
    cells.push_back(speedup ? three_digits(*speedup) + "x" : job.peer ? "peer" : "-");
    if (copy_column) {
      const auto pct = percent_of_copy(job, jobs);
      cells.push_back(pct ? fmt::format("{:.1f}%", *pct) : "-");
    }
  }
  cells.push_back(check_cell(job));
  return cells;
}

TableReporter::TableReporter(std::vector<BenchJob>& jobs, std::FILE* out,
                             std::function<void(const BenchJob&)> on_reported)
    : jobs_(jobs), out_(out), on_reported_(std::move(on_reported)) {
  copy_column_ = std::any_of(jobs_.begin(), jobs_.end(), [](const BenchJob& j) { return j.copy_baseline; });
  header_ = bench_header(copy_column_);
  widths_.assign(header_.size(), 0);
  for (std::size_t i = 0; i < header_.size(); ++i) widths_[i] = header_[i].size();
  for (std::size_t j = 0; j < jobs_.size(); ++j) {
    by_name_[jobs_[j].name] = j;
    widths_[0] = std::max(widths_[0], jobs_[j].test_case->op.size());
    widths_[1] = std::max(widths_[1], std::min(jobs_[j].test_case->id.size(), kMaxCaseWidth));
    widths_[2] = std::max(widths_[2], jobs_[j].impl_key.size());
  }
  widths_[3] = std::max<std::size_t>(widths_[3], 15);
  for (std::size_t i = 4; i + 1 < widths_.size(); ++i) widths_[i] = std::max<std::size_t>(widths_[i], 7);
}

bool TableReporter::ReportContext(const Context& context) {
  // Google Benchmark's own context (CPU, caches, load, scaling warnings) goes to stderr; stdout
  // keeps the table.
  PrintBasicContext(&GetErrorStream(), context);
  print_row(header_);
  std::vector<std::string> rule;
  for (std::size_t w : widths_) rule.push_back(std::string(w, '-'));
  print_row(rule);
  return true;
}

void TableReporter::ReportRuns(const std::vector<Run>& runs) {
  if (runs.empty()) return;
  const auto it = by_name_.find(runs.front().run_name.function_name);
  if (it == by_name_.end()) return;
  BenchJob& job = jobs_[it->second];
  for (const auto& run : runs) {
    ReportedRun r;
    r.aggregate = run.run_type == Run::RT_Aggregate ? run.aggregate_name : "";
    r.iterations = static_cast<int64_t>(run.iterations);
    r.seconds = run.aggregate_unit == benchmark::kPercentage
                    ? run.real_accumulated_time
                    : run.GetAdjustedRealTime() / benchmark::GetTimeUnitMultiplier(run.time_unit);
    job.reported.push_back(r);
  }
  // With repetitions Google Benchmark reports a benchmark twice: its repetitions, then their
  // aggregates. The row waits for the aggregates unless timing failed (no aggregates come then).
  const bool repetitions_only = runs.front().run_type == Run::RT_Iteration && runs.front().repetitions > 1;
  if (repetitions_only && job.error.empty()) return;
  print_row(bench_row_cells(job, jobs_, copy_column_));
  if (on_reported_) on_reported_(job);
}

void TableReporter::print_row(const std::vector<std::string>& cells) {
  std::string line;
  for (std::size_t i = 0; i < cells.size(); ++i) {
    const bool numeric = i >= 3 && i + 1 < cells.size();
    if (i + 1 == cells.size())
      line += cells[i];
    else if (numeric)
      line += fmt::format("{:>{}} | ", cells[i], widths_[i]);
    else
      line += fmt::format("{:<{}} | ", cells[i], widths_[i]);
  }
  fmt::print(out_, "{}\n", line);
  std::fflush(out_);
}

}  // namespace opcert
