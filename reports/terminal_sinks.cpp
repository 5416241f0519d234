#include "reports/terminal_sinks.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

#include "reports/phase_profile.h"
#include "reports/summary_table.h"

namespace opcert {
namespace {

class ProgressSink final : public ResultSink {
 public:
  ProgressSink(ProgressMode mode, std::size_t total) : progress_(mode, stderr, total) {}
  std::string name() const override { return "the progress display"; }
  void case_started(const CaseStart& s) override { progress_.starting(s.backend, s.impl_key, s.case_id); }
  void case_done(const CaseResult& result, bool peer) override { progress_.finished(result, peer); }
  void note(const std::string& line) override { progress_.note(line); }
  void run_finished(const RunReport&) override { progress_.done(); }

 private:
  Progress progress_;
};

class SummaryTableSink final : public ResultSink {
 public:
  explicit SummaryTableSink(std::filesystem::path out_dir) : out_dir_(std::move(out_dir)) {}
  std::string name() const override { return "the summary table"; }
  void run_finished(const RunReport& report) override {
    const char* no_color = std::getenv("NO_COLOR");  // no-color.org: set and not empty means no colour
    const bool color = isatty(STDOUT_FILENO) == 1 && report.launcher != "mpi" && (no_color == nullptr || *no_color == '\0');
    fmt::print("{}", console_summary_table(report, color));
    if (report.ranks)
      fmt::print("{} result(s) from {} rank(s) in {}{}\n", report.results.size(), *report.ranks, out_dir_.string(),
                 report.complete ? "" : " (incomplete)");
    else
      fmt::print("{} result(s) in {}{}\n", report.results.size(), out_dir_.string(),
                 report.complete ? "" : " (incomplete: the run was interrupted)");
    std::fflush(stdout);
  }

 private:
  std::filesystem::path out_dir_;
};

class ProfileSink final : public ResultSink {
 public:
  std::string name() const override { return "the profile"; }
  void run_finished(const RunReport& report) override {
    const std::string text = profile_text(report);
    fmt::print("{}", text.empty() ? "\nprofile: no result has phases (each was made by the runner: crashed, timed out)\n" : text);
    std::fflush(stdout);
  }
};

}  // namespace

std::unique_ptr<ResultSink> make_profile_sink() { return std::make_unique<ProfileSink>(); }

std::unique_ptr<ResultSink> make_progress_sink(ProgressMode mode, std::size_t total) {
  return std::make_unique<ProgressSink>(mode, total);
}

std::unique_ptr<ResultSink> make_summary_table_sink(std::filesystem::path out_dir) {
  return std::make_unique<SummaryTableSink>(std::move(out_dir));
}

}  // namespace opcert
