#include "bench/collective_bench_record.h"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "bench/bench_report.h"
#include "bench/collective_bench_rows.h"
#include "model/case_result_json.h"
#include "model/exit_codes.h"
#include "model/input_error.h"
#include "reports/json_report_writer.h"
#include "reports/number_format.h"
#include "reports/report_writer.h"
#include "run/run_paths.h"

namespace opcert {

using nlohmann::json;

CollectiveBenchRecord::CollectiveBenchRecord(CollectiveBenchContext context, std::vector<CollectiveBenchJob> jobs,
                                             std::FILE* out)
    : context_(std::move(context)), jobs_(std::move(jobs)), out_(out) {
  const auto& dir = context_.settings->out_dir;
  prepare_out_dir(dir);
  results_ = std::make_unique<ResultsStream>(dir, ResultsStream::Mode::kTruncate);
  measurements_ = std::fopen((dir / "measurements.jsonl").c_str(), "w");
  if (measurements_ == nullptr)
    throw InputError(fmt::format("cannot write {}: {}", (dir / "measurements.jsonl").string(), std::strerror(errno)));
  for (auto& job : jobs_) {
    job.checks.assign(static_cast<std::size_t>(context_.ranks), std::nullopt);
    job.seconds.assign(static_cast<std::size_t>(context_.ranks), std::nullopt);
  }
  fmt::print(out_, "{} ranks; {} timed and {} warm-up collectives per size; time: the mean over the ranks; "
                   "busbw = algbw x the bus factor (nccl-tests)\n",
             context_.ranks, context_.collective.iters, context_.collective.warmup);
  print_collective_bench_row(out_, collective_bench_header());
}

void CollectiveBenchRecord::begin_step(std::size_t step) {
  const std::lock_guard lock(mutex_);
  current_ = step;
}

void CollectiveBenchRecord::set_check(std::size_t step, int rank, CaseResult r) {
  r.rank = rank;
  results_->append(r);
  jobs_.at(step).checks.at(static_cast<std::size_t>(rank)) = std::move(r);
}

void CollectiveBenchRecord::add(int from, const json& outcome) {
  CaseResult r = case_result_from_json(outcome.at("result"));
  const std::lock_guard lock(mutex_);
  CollectiveBenchJob& job = jobs_.at(current_);
  if (outcome.contains("seconds") && outcome["seconds"].is_number())
    job.seconds.at(static_cast<std::size_t>(from)) = outcome["seconds"].get<double>();
  if (outcome.contains("timing") && outcome["timing"].is_string()) job.timing_method = outcome["timing"].get<std::string>();
  set_check(current_, from, std::move(r));
}

void CollectiveBenchRecord::add_stuck(int from, const std::string& message) {
  const std::lock_guard lock(mutex_);
  CollectiveBenchJob& job = jobs_.at(current_);
  CaseResult r = CaseResult{};
  r.backend = job.backend;
  r.impl_key = job.impl_key;
  r.case_id = job.sized.id;
  r.op = job.sized.op;
  r.status = Status::kTimeout;
  r.message = message;
  set_check(current_, from, std::move(r));
}

void CollectiveBenchRecord::end_step() {
  const std::lock_guard lock(mutex_);
  if (printed_.contains(current_)) return;
  printed_.insert(current_);
  const CollectiveBenchJob& job = jobs_.at(current_);
  print_row(job);
  const std::string line = dump_json(collective_bench_record_json(job, jobs_, context_.ranks, context_.collective)) + "\n";
  if (std::fputs(line.c_str(), measurements_) < 0 || std::fflush(measurements_) != 0)
    fmt::print(stderr, "opcert: cannot write measurements.jsonl: {}\n", std::strerror(errno));
}

void CollectiveBenchRecord::print_row(const CollectiveBenchJob& job) {
  print_collective_bench_row(out_, collective_bench_cells(job, jobs_, context_.ranks));
  // A row that did not pass says why under it, once per implementation and reason: a sweep
  // repeats the same reason at every size.
  const Status status = job.status();
  if (status == Status::kPassed || status == Status::kMistrusted) return;
  const std::string reason = job.message();
  if (reasons_printed_.insert(job.impl_key + '\n' + reason).second)
    fmt::print(out_, "        {} {}: {}\n", status_name(status), job.impl_key, reason.empty() ? "no reason given" : reason);
}

void CollectiveBenchRecord::record_lost(Status status, const std::string& now_message, const std::string& later_message) {
  const std::lock_guard lock(mutex_);
  for (std::size_t step = current_; step < jobs_.size(); ++step) {
    CollectiveBenchJob& job = jobs_[step];
    for (std::size_t rank = 0; rank < job.checks.size(); ++rank) {
      if (job.checks[rank]) continue;
      CaseResult r;
      r.backend = job.backend;
      r.impl_key = job.impl_key;
      r.case_id = job.sized.id;
      r.op = job.sized.op;
      r.status = step == current_ ? status : Status::kError;
      r.message = step == current_ ? now_message : later_message;
      set_check(step, static_cast<int>(rank), std::move(r));
    }
  }
}

int CollectiveBenchRecord::exit_code_of() const {
  for (const auto& job : jobs_)
    if (!job.peer && (collective_row_gates(job.status()) || (job.status() == Status::kPassed && !job.mean_seconds()))) return kExitCheckFailed;
  return 0;
}

int CollectiveBenchRecord::finish(bool complete, std::optional<int> forced) {
  const std::lock_guard lock(mutex_);
  if (exit_code_) return *exit_code_;
  const int code = forced.value_or(exit_code_of());
  exit_code_ = complete ? code : (forced ? *forced : kExitCheckFailed);
  // Rows past a lost step were never printed: print them now, so the table shows what happened.
  for (std::size_t step = 0; step < jobs_.size(); ++step)
    if (!printed_.contains(step) && jobs_[step].checks.size() == static_cast<std::size_t>(context_.ranks) &&
        std::all_of(jobs_[step].checks.begin(), jobs_[step].checks.end(), [](const auto& c) { return c.has_value(); })) {
      printed_.insert(step);
      print_row(jobs_[step]);
    }
  try {
    write_outputs(complete, *exit_code_);
  } catch (const std::exception& e) {
    fmt::print(stderr, "opcert: {}\n", e.what());
    exit_code_ = kExitCheckFailed;
  }
  if (measurements_ != nullptr) std::fclose(measurements_);
  measurements_ = nullptr;
  return *exit_code_;
}

void CollectiveBenchRecord::write_outputs(bool complete, int exit_code) {
  const BenchSettings& s = *context_.settings;
  const auto& dir = s.out_dir;
  RunReport report = bench_report_header(s, *context_.suite, *context_.targets, iso_utc(context_.started),
                                         iso_utc(std::chrono::system_clock::now()), exit_code);
  report.complete = complete;
  report.ranks = context_.ranks;
  report.launcher = context_.launcher;
  for (const auto& job : jobs_)
    for (const auto& c : job.checks)
      if (c) report.results.push_back(*c);

  json doc = report_to_json(report);
  doc["kind"] = "opcert-bench-report";
  json records = json::array();
  json gbench = json::array();
  const CollectiveBenchSettings& cs = context_.collective;
  for (const auto& job : jobs_) {
    records.push_back(collective_bench_record_json(job, jobs_, context_.ranks, cs));
    const auto t = job.mean_seconds();
    if (!t) continue;
    // Google Benchmark's shape, so that its tools/compare.py reads two runs.
    json b = {{"name", job.name},        {"run_name", job.name},     {"run_type", "iteration"},
              {"repetitions", 1},        {"repetition_index", 0},    {"threads", 1},
              {"iterations", cs.iters},  {"real_time", *t * 1e6},    {"cpu_time", *t * 1e6},
              {"time_unit", "us"},       {"bytes", job.bytes},       {"count", job.spec.count},
              {"algbw_gbps", json_number(job.algbw_gbps())},
              {"busbw_gbps", json_number(job.busbw_gbps(context_.ranks))},
              {"label", std::string(status_name(job.status()))}};
    if (const auto peer = peer_busbw_gbps(job, jobs_, context_.ranks); peer && !job.peer) b["peer_busbw_gbps"] = *peer;
    if (const auto ratio = ratio_vs_peer(job, jobs_, context_.ranks)) b["ratio_vs_peer"] = *ratio;
    gbench.push_back(std::move(b));
  }
  doc["benchmarks"] = records;
  doc["bench_settings"] = {{"cold_l2", false},
                           {"copy_baseline", false},
                           {"benchmark_flags", json::array()},
                           {"collectives",
                            {{"min_bytes", cs.sweep.min_bytes},
                             {"max_bytes", cs.sweep.max_bytes},
                             {"step_factor", cs.sweep.step_factor},
                             {"iters", cs.iters},
                             {"warmup", cs.warmup},
                             {"timeout_s", cs.timeout.count() / 1000.0},
                             {"time_over_ranks", "mean"}}}};
  const json bench = {{"context",
                       {{"date", report.started_at},
                        {"executable", "opcert bench"},
                        {"ranks", context_.ranks},
                        {"library_build_type", "release"}}},
                      {"benchmarks", gbench}};
  write_file_atomically(dir / "bench.json", dump_json(bench, 2) + "\n");
  write_file_atomically(dir / "report.json", dump_json(doc, 2) + "\n");
  fmt::print(out_, "{} row(s) on {} rank(s); bench.json, report.json, measurements.jsonl and results.jsonl in {}\n",
             jobs_.size(), context_.ranks, dir.string());
  std::fflush(out_);
}

}  // namespace opcert
