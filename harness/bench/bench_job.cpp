#include "bench/bench_job.h"

#include "bench/roofline.h"

namespace opcert {
namespace {

// `theirs` over `mine`, when both were measured.
std::optional<double> ratio(const std::optional<double>& theirs, const std::optional<double>& mine) {
  if (!mine || !theirs || *mine <= 0) return std::nullopt;
  return *theirs / *mine;
}

}  // namespace

std::optional<double> BenchJob::typical_seconds() const {
  if (!error.empty()) return std::nullopt;
  return opcert::typical_seconds(runs);
}

std::optional<double> speedup_vs_peer(const BenchJob& job, const std::vector<BenchJob>& jobs) {
  if (!job.peer_job) return std::nullopt;
  return ratio(jobs.at(*job.peer_job).typical_seconds(), job.typical_seconds());
}

std::optional<double> percent_of_copy(const BenchJob& job, const std::vector<BenchJob>& jobs) {
  if (!job.copy_job) return std::nullopt;
  const auto copy = ratio(jobs.at(*job.copy_job).typical_seconds(), job.typical_seconds());
  if (!copy) return std::nullopt;
  return 100.0 * *copy;
}

BenchRecord bench_record(const BenchJob& job, const std::vector<BenchJob>& jobs) {
  BenchRecord r;
  r.name = job.name;
  r.backend = job.backend->name();
  r.impl_key = job.impl_key;
  r.case_id = job.test_case->id;
  r.op = job.test_case->op;
  r.peer = job.peer;
  r.copy_baseline = job.copy_baseline;
  if (job.check) {
    r.check = job.check->status;
    if (job.check->status != Status::kPassed) r.check_message = job.check->message;
  }
  r.error = job.error;
  r.timing = job.timing_method;
  r.library_call = job.library_call;
  r.published_bytes = job.published_bytes;
  r.flops = job.work.flops;
  r.bytes = job.work.bytes;
  r.compute_dtype = job.work.compute_dtype;
  r.platform = job.platform ? job.platform->name : "";
  r.runs = job.runs;
  r.seconds = job.typical_seconds();
  if (job.error.empty()) r.spread = repetition_spread(job.runs);
  r.noise = largest_noise(job.runs);
  std::vector<SamplingConditions> conditions;
  for (const auto& run : job.runs) {
    if (!run.sampling) continue;
    conditions.push_back(run.sampling->conditions);
    r.noise_limited |= run.sampling->stopped_by == "time_limit";
  }
  r.host_bound = is_host_bound(job.runs);
  r.condition_flags = condition_flags(conditions);
  if (r.seconds && *r.seconds > 0) {
    if (job.work.flops > 0) r.tflops = job.work.flops / *r.seconds / 1e12;
    if (job.work.bytes > 0) r.gbps = job.work.bytes / *r.seconds / 1e9;
    if (job.platform) r.pct_peak = roofline_percent(job.work, job.platform->peaks, *r.seconds);
  }
  r.speedup_vs_peer = speedup_vs_peer(job, jobs);
  r.pct_of_copy = percent_of_copy(job, jobs);
  r.device = job.device;
  r.rank = job.rank;
  return r;
}

}  // namespace opcert
