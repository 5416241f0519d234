// Rank 0's ledger of `opcert run` on collectives: every rank's result of every case, emitted into
// the result stream as it arrives (results.jsonl, progress), and at the end the whole run
// (report.json, junit.xml, summary.md, the summary table). The rank loop and its watchdog both
// reach it (the watchdog finishes a lost job while the loop is stuck in a backend call), so every
// entry point locks.
#pragma once

#include <cstddef>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "reports/result_stream.h"
#include "run/run_settings.h"
#include "session/job/repro.h"
#include "session/rank_loop/collective_loop.h"

namespace opcert {

class CollectiveRunLedger : public RankLedger {
 public:
  /// Opens the outputs in settings.out_dir (InputError when it cannot be used).
  CollectiveRunLedger(RunReport header, const RunSettings& settings, const std::vector<CollectiveStep>& steps,
                      const std::vector<RunTarget>& targets, int ranks);

  void begin_step(std::size_t step) override;
  void add(int from, const nlohmann::json& outcome) override;
  void add_stuck(int from, const std::string& message) override;
  void record_lost(Status status, const std::string& now_message, const std::string& later_message) override;
  int finish(bool complete, std::optional<int> forced) override;

 private:
  void add_locked(CaseResult result);
  CaseResult synthesized(std::size_t step, int rank, Status status, const std::string& message) const;

  std::mutex mutex_;
  RunReport report_;
  const RunSettings& settings_;
  const std::vector<CollectiveStep>& steps_;
  const std::vector<RunTarget>& targets_;
  int ranks_;
  ReproContext repro_;
  ResultStream stream_;
  std::size_t current_ = 0;
  std::set<int> recorded_;  // ranks with a result for the current case
  std::optional<int> exit_code_;
};

}  // namespace opcert
