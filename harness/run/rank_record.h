// Rank 0's record of a collective run: every rank's result of every case, streamed to
// results.jsonl as it arrives and written into the reports at the end. Shared between the rank
// runner and its watchdog (which may have to write the reports while the runner is stuck in a
// backend call), so every entry point locks.
#pragma once

#include <cstddef>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "check/suite.h"
#include "reports/results_stream.h"
#include "reports/run_report.h"
#include "run/conformance_runner.h"
#include "run/job_list.h"
#include "run/progress.h"
#include "run/repro.h"

namespace opcert {

class RankRecord {
 public:
  /// Opens results.jsonl in settings.out_dir (InputError when it cannot).
  RankRecord(RunReport header, const RunSettings& settings, const Suite& suite, std::vector<Job> jobs,
             std::vector<RunTarget> targets, int ranks);

  /// The case every later result belongs to, until the next call.
  void begin_job(std::size_t job);
  /// One rank's result of the current case.
  void add(CaseResult result);
  /// A result for (job, rank) made from the case: names filled in, with this status and message.
  CaseResult synthesized(std::size_t job, int rank, Status status, const std::string& message) const;
  /// The ranks lost the job: every rank with no result yet for the current case gets `status`
  /// and `now_message`, and every later case every rank ERROR with `later_message`.
  void record_lost(Status status, const std::string& now_message, const std::string& later_message);
  /// Writes the reports (once: later calls return the first exit code), prints the summary table,
  /// and returns the run's exit code: `forced` when given, else 0 or 1 from the results.
  int finish(bool complete, std::optional<int> forced = std::nullopt);

 private:
  void add_locked(CaseResult result);

  std::mutex mutex_;
  RunReport report_;
  RunSettings settings_;
  const Suite* suite_;
  std::vector<Job> jobs_;
  std::vector<RunTarget> targets_;
  int ranks_;
  ReproContext repro_;
  std::unique_ptr<ResultsStream> stream_;
  Progress progress_;
  std::size_t current_ = 0;
  std::set<int> recorded_;  // ranks with a result for the current case
  std::optional<int> exit_code_;
};

}  // namespace opcert
