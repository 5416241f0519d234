// Rank 0's ledger of `opcert bench` on collectives: every rank's check and time of every row,
// the table row printed once a row is complete, measurements.jsonl and results.jsonl streamed,
// and at the end (or when the job is lost) bench.json and report.json. The rank loop and its
// watchdog both reach it, so every entry point locks.
#pragma once

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "bench/collective_bench.h"
#include "bench/collective_bench_job.h"
#include "reports/results_stream.h"
#include "run/rank_session.h"

namespace opcert {

struct CollectiveBenchContext {
  const std::vector<RunTarget>* targets = nullptr;
  const Suite* suite = nullptr;
  const BenchSettings* settings = nullptr;
  CollectiveBenchSettings collective;
  int ranks = 1;
  std::string launcher;
  std::chrono::system_clock::time_point started;
};

class CollectiveBenchRecord : public RankLedger {
 public:
  /// Opens the outputs in settings.out_dir (InputError when it cannot be used) and prints the header.
  CollectiveBenchRecord(CollectiveBenchContext context, std::vector<CollectiveBenchJob> jobs, std::FILE* out);

  void begin_step(std::size_t step) override;
  void add(int from, const nlohmann::json& outcome) override;
  void add_stuck(int from, const std::string& message) override;
  void record_lost(Status status, const std::string& now_message, const std::string& later_message) override;
  int finish(bool complete, std::optional<int> forced = std::nullopt) override;

  /// Prints the current row and streams its record (once every rank's outcome is in).
  void end_step();

 private:
  void set_check(std::size_t step, int rank, CaseResult r);
  void write_outputs(bool complete, int exit_code);
  int exit_code_of() const;
  void print_row(const CollectiveBenchJob& job);  // with the reason under it, the first time

  std::mutex mutex_;
  CollectiveBenchContext context_;
  std::vector<CollectiveBenchJob> jobs_;
  std::FILE* out_;
  std::unique_ptr<ResultsStream> results_;
  std::FILE* measurements_ = nullptr;
  std::size_t current_ = 0;
  std::set<std::size_t> printed_;
  std::set<std::string> reasons_printed_;  // "impl\nreason" already printed under a row
  std::optional<int> exit_code_;
};

}  // namespace opcert
