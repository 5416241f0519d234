// Rank 0's ledger of `opcert bench` on collectives: every rank's check and time of every row into
// the result stream (results.jsonl as the checks arrive; the row's record, for the table and
// measurements.jsonl, once every rank's outcome is in), and at the end, or when the job is lost,
// the whole run (report.json, bench.json). The rank loop and its watchdog both reach it, so every
// entry point locks.
#pragma once

#include <cstddef>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "bench/collective_bench.h"
#include "bench/collective_bench_job.h"
#include "reports/result_stream.h"
#include "session/rank_loop/rank_session.h"

namespace opcert {

class CollectiveBenchLedger : public RankLedger {
 public:
  /// Opens the outputs in settings.out_dir (InputError when it cannot be used) and starts the run
  /// with `header` (ranks, launcher and bench settings set).
  CollectiveBenchLedger(RunReport header, const BenchSettings& settings, const CollectiveBenchSettings& collective,
                        std::vector<CollectiveBenchJob>& jobs, int ranks);

  void begin_step(std::size_t step) override;
  void add(int from, const nlohmann::json& outcome) override;
  void add_stuck(int from, const std::string& message) override;
  void end_step() override;
  void record_lost(Status status, const std::string& now_message, const std::string& later_message) override;
  int finish(bool complete, std::optional<int> forced) override;

 private:
  void set_check(std::size_t step, int rank, CaseResult r);
  CaseResult synthesized(const CollectiveBenchJob& job, Status status, const std::string& message) const;
  void emit_row(std::size_t step);
  int exit_code_of() const;

  std::mutex mutex_;
  RunReport report_;
  const BenchSettings& settings_;
  CollectiveBenchSettings collective_;
  std::vector<CollectiveBenchJob>& jobs_;
  int ranks_;
  ResultStream stream_;
  std::size_t current_ = 0;
  std::set<std::size_t> emitted_;
  std::optional<int> exit_code_;
};

}  // namespace opcert
