#include "run/collective_ledger.h"

#include <fmt/format.h>

#include <algorithm>

#include "model/case_result_json.h"
#include "model/exit_codes.h"
#include "model/input_error.h"
#include "reports/output_sets.h"
#include "session/job/run_header.h"
#include "session/job/run_paths.h"

namespace opcert {

CollectiveRunLedger::CollectiveRunLedger(RunReport header, const RunSettings& settings,
                                         const std::vector<CollectiveStep>& steps, const std::vector<RunTarget>& targets,
                                         int ranks)
    : report_(std::move(header)),
      settings_(settings),
      steps_(steps),
      targets_(targets),
      ranks_(ranks),
      repro_{settings.repro_suite, settings.seed, settings.repro_options} {
  prepare_out_dir(settings.out_dir);
  try {
    add_conformance_outputs(stream_, settings.out_dir, settings.progress, steps.size() * static_cast<std::size_t>(ranks),
                            false, settings.profile);
  } catch (const std::exception& e) {
    throw InputError(fmt::format("--out '{}': {}", settings.out_dir.string(), e.what()));
  }
  stream_.run_started(report_);
}

void CollectiveRunLedger::begin_step(std::size_t step) {
  const std::lock_guard lock(mutex_);
  current_ = step;
  recorded_.clear();
  const CollectiveStep& s = steps_[step];
  stream_.case_started({targets_[s.backend_index].backend->name(), s.impl_key, s.c->id});
}

CaseResult CollectiveRunLedger::synthesized(std::size_t step, int rank, Status status, const std::string& message) const {
  const CollectiveStep& s = steps_[step];
  CaseResult r = blank_result(targets_[s.backend_index].backend->name(), s.impl_key, *s.c);
  r.status = status;
  r.message = message;
  r.rank = rank;
  return r;
}

void CollectiveRunLedger::add(int from, const nlohmann::json& outcome) {
  CaseResult r = case_result_from_json(outcome.at("result"));
  r.rank = from;
  const std::lock_guard lock(mutex_);
  add_locked(std::move(r));
}

void CollectiveRunLedger::add_stuck(int from, const std::string& message) {
  const std::lock_guard lock(mutex_);
  // A stuck rank's watchdog sends only its message; the names come from the case.
  add_locked(synthesized(current_, from, Status::kTimeout, message));
}

void CollectiveRunLedger::add_locked(CaseResult r) {
  if (exit_code_) return;  // the reports are written; a late result has nowhere to go
  if (r.repro.empty()) {
    const CollectiveStep& s = steps_[current_];
    const RunTarget& t = targets_[s.backend_index];
    const std::string line = repro_line(t.backend->name(), t.backend->source(), s.impl_key, r.case_id, repro_);
    r.repro = ranks_ > 1 ? fmt::format("mpirun -np {} {}", ranks_, line) : line;
  }
  if (r.rank) recorded_.insert(*r.rank);
  stream_.case_done(r, false);
  report_.results.push_back(std::move(r));
}

void CollectiveRunLedger::record_lost(Status status, const std::string& now_message, const std::string& later_message) {
  const std::lock_guard lock(mutex_);
  for (int rank = 0; rank < ranks_; ++rank)
    if (!recorded_.contains(rank)) add_locked(synthesized(current_, rank, status, now_message));
  for (std::size_t step = current_ + 1; step < steps_.size(); ++step) {
    current_ = step;
    recorded_.clear();
    for (int rank = 0; rank < ranks_; ++rank) add_locked(synthesized(step, rank, Status::kError, later_message));
  }
}

int CollectiveRunLedger::finish(bool complete, std::optional<int> forced) {
  const std::lock_guard lock(mutex_);
  if (exit_code_) return *exit_code_;
  const bool any_failed = std::any_of(report_.results.begin(), report_.results.end(),
                                      [](const CaseResult& r) { return status_fails_run(r.status); });
  report_.complete = complete;
  report_.exit_code = forced ? *forced : (any_failed ? kExitCheckFailed : kExitOk);
  report_.finished_at = now_utc();
  report_.environment = capture_environment(settings_.environment);
  stream_.run_finished(report_);
  report_.exit_code = stream_.finish(report_.exit_code);
  std::fflush(nullptr);
  exit_code_ = report_.exit_code;
  return *exit_code_;
}

}  // namespace opcert
