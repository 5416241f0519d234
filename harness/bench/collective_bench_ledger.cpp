#include "bench/collective_bench_ledger.h"

#include <fmt/format.h>

#include <algorithm>

#include "model/case_result_json.h"
#include "model/exit_codes.h"
#include "model/input_error.h"
#include "reports/output_sets.h"
#include "session/job/run_header.h"
#include "session/job/run_paths.h"

namespace opcert {

using nlohmann::json;

CollectiveBenchLedger::CollectiveBenchLedger(RunReport header, const BenchSettings& settings,
                                             const CollectiveBenchSettings& collective,
                                             std::vector<CollectiveBenchJob>& jobs, int ranks)
    : report_(std::move(header)), settings_(settings), collective_(collective), jobs_(jobs), ranks_(ranks) {
  prepare_out_dir(settings.out_dir);
  try {
    add_collective_bench_outputs(stream_, settings.out_dir);
  } catch (const std::exception& e) {
    throw InputError(fmt::format("--out '{}': {}", settings.out_dir.string(), e.what()));
  }
  for (auto& job : jobs_) {
    job.checks.assign(static_cast<std::size_t>(ranks_), std::nullopt);
    job.seconds.assign(static_cast<std::size_t>(ranks_), std::nullopt);
  }
  stream_.run_started(report_);
}

void CollectiveBenchLedger::begin_step(std::size_t step) {
  const std::lock_guard lock(mutex_);
  current_ = step;
}

void CollectiveBenchLedger::set_check(std::size_t step, int rank, CaseResult r) {
  r.rank = rank;
  CollectiveBenchJob& job = jobs_.at(step);
  stream_.case_done(r, job.peer);
  job.checks.at(static_cast<std::size_t>(rank)) = std::move(r);
}

CaseResult CollectiveBenchLedger::synthesized(const CollectiveBenchJob& job, Status status, const std::string& message) const {
  CaseResult r = blank_result(job.backend, job.impl_key, job.sized);
  r.status = status;
  r.message = message;
  return r;
}

void CollectiveBenchLedger::add(int from, const json& outcome) {
  CaseResult r = case_result_from_json(outcome.at("result"));
  const std::lock_guard lock(mutex_);
  CollectiveBenchJob& job = jobs_.at(current_);
  if (outcome.contains("seconds") && outcome["seconds"].is_number())
    job.seconds.at(static_cast<std::size_t>(from)) = outcome["seconds"].get<double>();
  if (outcome.contains("timing") && outcome["timing"].is_string()) job.timing_method = outcome["timing"].get<std::string>();
  set_check(current_, from, std::move(r));
}

void CollectiveBenchLedger::add_stuck(int from, const std::string& message) {
  const std::lock_guard lock(mutex_);
  set_check(current_, from, synthesized(jobs_.at(current_), Status::kTimeout, message));
}

void CollectiveBenchLedger::emit_row(std::size_t step) {
  if (!emitted_.insert(step).second) return;
  stream_.benchmark_done(bench_record(jobs_.at(step), jobs_, ranks_, collective_.iters, collective_.warmup));
}

void CollectiveBenchLedger::end_step() {
  const std::lock_guard lock(mutex_);
  emit_row(current_);
}

void CollectiveBenchLedger::record_lost(Status status, const std::string& now_message, const std::string& later_message) {
  const std::lock_guard lock(mutex_);
  for (std::size_t step = current_; step < jobs_.size(); ++step) {
    CollectiveBenchJob& job = jobs_[step];
    for (std::size_t rank = 0; rank < job.checks.size(); ++rank)
      if (!job.checks[rank])
        set_check(step, static_cast<int>(rank),
                  synthesized(job, step == current_ ? status : Status::kError, step == current_ ? now_message : later_message));
  }
}

int CollectiveBenchLedger::exit_code_of() const {
  for (const auto& job : jobs_)
    if (!job.peer && (collective_row_gates(job.status()) || (job.status() == Status::kPassed && !job.mean_seconds())))
      return kExitCheckFailed;
  return kExitOk;
}

int CollectiveBenchLedger::finish(bool complete, std::optional<int> forced) {
  const std::lock_guard lock(mutex_);
  if (exit_code_) return *exit_code_;
  const int code = forced.value_or(exit_code_of());
  exit_code_ = complete ? code : (forced ? *forced : kExitCheckFailed);
  // Rows past a lost step were never shown: show them now, so the table says what happened.
  for (std::size_t step = 0; step < jobs_.size(); ++step)
    if (std::all_of(jobs_[step].checks.begin(), jobs_[step].checks.end(), [](const auto& c) { return c.has_value(); }))
      emit_row(step);
  report_.complete = complete;
  report_.exit_code = *exit_code_;
  report_.finished_at = now_utc();
  report_.environment = capture_environment(settings_.environment);
  for (const auto& job : jobs_)
    for (const auto& c : job.checks)
      if (c) report_.results.push_back(*c);
  for (const auto& job : jobs_)
    report_.benchmarks.push_back(bench_record(job, jobs_, ranks_, collective_.iters, collective_.warmup));
  // bench.json's context: Google Benchmark's shape, for its tools/compare.py.
  report_.bench_context = {
      {"date", report_.started_at}, {"executable", "opcert bench"}, {"ranks", ranks_}, {"json_schema_version", 1}};
  stream_.run_finished(report_);
  if (stream_.failed()) exit_code_ = kExitCheckFailed;  // a missing report fails the bench: nothing to gate on
  std::fflush(nullptr);
  return *exit_code_;
}

}  // namespace opcert
