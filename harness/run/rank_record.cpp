#include "run/rank_record.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>

#include "check/prepared_case.h"
#include "model/exit_codes.h"
#include "model/input_error.h"
#include "reports/environment.h"
#include "reports/summary_table.h"
#include "run/repro.h"
#include "run/run_paths.h"

namespace opcert {

RankRecord::RankRecord(RunReport header, const RunSettings& settings, const Suite& suite, std::vector<Job> jobs,
                       std::vector<RunTarget> targets, int ranks)
    : report_(std::move(header)),
      settings_(settings),
      suite_(&suite),
      jobs_(std::move(jobs)),
      targets_(std::move(targets)),
      ranks_(ranks),
      repro_{settings.repro_suite, settings.seed, settings.repro_options},
      progress_(settings.progress, stderr, jobs_.size() * static_cast<std::size_t>(ranks)) {
  try {
    stream_ = std::make_unique<ResultsStream>(settings.out_dir, ResultsStream::Mode::kTruncate);
  } catch (const std::exception& e) {
    throw InputError(fmt::format("--out '{}': {}", settings.out_dir.string(), e.what()));
  }
}

void RankRecord::begin_job(std::size_t job) {
  const std::lock_guard lock(mutex_);
  current_ = job;
  recorded_.clear();
  const Job& j = jobs_[job];
  progress_.starting(j.backend, j.impl_key, suite_->cases[j.case_index].id);
}

CaseResult RankRecord::synthesized(std::size_t job, int rank, Status status, const std::string& message) const {
  const Job& j = jobs_[job];
  CaseResult r = blank_result(targets_[j.backend_index].backend->name(), j.impl_key, suite_->cases[j.case_index]);
  r.status = status;
  r.message = message;
  r.rank = rank;
  return r;
}

void RankRecord::add(CaseResult result) {
  const std::lock_guard lock(mutex_);
  add_locked(std::move(result));
}

void RankRecord::add_locked(CaseResult r) {
  if (exit_code_) return;  // the reports are written; a late result has nowhere to go
  if (r.repro.empty()) {
    const Job& j = jobs_[current_];
    const RunTarget& t = targets_[j.backend_index];
    const std::string line = repro_line(t.backend->name(), t.backend->source(), j.impl_key, r.case_id, repro_);
    r.repro = ranks_ > 1 ? fmt::format("mpirun -np {} {}", ranks_, line) : line;
  }
  if (r.rank) recorded_.insert(*r.rank);
  try {
    stream_->append(r);
  } catch (const std::exception& e) {
    progress_.note(fmt::format("opcert: error: {}", e.what()));
  }
  progress_.finished(r, false);
  report_.results.push_back(std::move(r));
}

void RankRecord::record_lost(Status status, const std::string& now_message, const std::string& later_message) {
  const std::lock_guard lock(mutex_);
  for (int rank = 0; rank < ranks_; ++rank)
    if (!recorded_.contains(rank)) add_locked(synthesized(current_, rank, status, now_message));
  for (std::size_t job = current_ + 1; job < jobs_.size(); ++job) {
    current_ = job;
    recorded_.clear();
    for (int rank = 0; rank < ranks_; ++rank) add_locked(synthesized(job, rank, Status::kError, later_message));
  }
}

int RankRecord::finish(bool complete, std::optional<int> forced) {
  const std::lock_guard lock(mutex_);
  if (exit_code_) return *exit_code_;
  progress_.done();
  const bool any_failed = std::any_of(report_.results.begin(), report_.results.end(),
                                      [](const CaseResult& r) { return status_fails_run(r.status); });
  report_.complete = complete;
  report_.exit_code = forced ? *forced : (any_failed ? kExitCheckFailed : kExitOk);
  report_.finished_at = iso_utc(std::chrono::system_clock::now());
  report_.environment = capture_environment(settings_.environment);
  const bool written = write_reports(report_, settings_.out_dir);
  // Under MPI the launcher hands ranks a pseudo-terminal even when its own output is a file: no colours there.
  fmt::print("{}", console_summary_table(report_, isatty(STDOUT_FILENO) == 1 && report_.launcher != "mpi"));
  fmt::print("{} result(s) from {} rank(s) in {}{}\n", report_.results.size(), ranks_, settings_.out_dir.string(),
             complete ? "" : " (incomplete)");
  if (!written) fmt::print(stderr, "opcert: error: some reports could not be written; results.jsonl has every result\n");
  std::fflush(nullptr);
  exit_code_ = report_.exit_code;
  return *exit_code_;
}

}  // namespace opcert
