#include "bench/collective_bench_job.h"

#include "bench/collective_sweep.h"
#include "model/dtype.h"

namespace opcert {
namespace {

int severity(Status s) {
  switch (s) {
    case Status::kPassed:
    case Status::kMistrusted: return 0;
    case Status::kSkipped: return 1;
    case Status::kFailed: return 2;
    case Status::kError: return 3;
    default: return 4;  // TIMEOUT, CRASHED
  }
}

}  // namespace

Status CollectiveBenchJob::status() const {
  Status worst = Status::kPassed;
  for (const auto& c : checks) {
    const Status s = c ? c->status : Status::kError;
    if (severity(s) > severity(worst)) worst = s;
  }
  return checks.empty() ? Status::kError : worst;
}

std::string CollectiveBenchJob::message() const {
  const Status worst = status();
  for (std::size_t r = 0; r < checks.size(); ++r) {
    if (!checks[r]) return "rank " + std::to_string(r) + " gave no result";
    if (checks[r]->status == worst) return checks[r]->message;
  }
  return checks.empty() ? "not run" : "";
}

std::optional<double> CollectiveBenchJob::mean_seconds() const {
  if (seconds.empty()) return std::nullopt;
  double sum = 0.0;
  for (const auto& s : seconds) {
    if (!s || *s <= 0) return std::nullopt;
    sum += *s;
  }
  return sum / static_cast<double>(seconds.size());
}

std::optional<double> CollectiveBenchJob::algbw_gbps() const {
  const auto t = mean_seconds();
  if (!t) return std::nullopt;
  return static_cast<double>(bytes) / *t / 1e9;
}

std::optional<double> CollectiveBenchJob::busbw_gbps(int ranks) const {
  const auto alg = algbw_gbps();
  if (!alg) return std::nullopt;
  return *alg * spec.bus_factor(ranks);
}

bool collective_row_gates(Status s) { return s != Status::kPassed && s != Status::kMistrusted && s != Status::kSkipped; }

std::optional<double> peer_busbw_gbps(const CollectiveBenchJob& job, const std::vector<CollectiveBenchJob>& jobs, int ranks) {
  std::optional<double> best;
  for (const auto& other : jobs)
    if (other.peer && other.case_index == job.case_index && other.bytes == job.bytes && other.status() == Status::kPassed)
      if (const auto bw = other.busbw_gbps(ranks); bw && (!best || *bw > *best)) best = bw;
  return best;
}

std::optional<double> ratio_vs_peer(const CollectiveBenchJob& job, const std::vector<CollectiveBenchJob>& jobs, int ranks) {
  if (job.peer) return std::nullopt;
  const auto ours = job.busbw_gbps(ranks);
  const auto peer = peer_busbw_gbps(job, jobs, ranks);
  if (!ours || !peer || *peer <= 0) return std::nullopt;
  return *ours / *peer;
}

BenchRecord bench_record(const CollectiveBenchJob& job, const std::vector<CollectiveBenchJob>& jobs, int ranks, int iters,
                         int warmup) {
  const auto t = job.mean_seconds();
  const Status status = job.status();
  BenchRecord r;
  r.name = job.name;
  r.backend = job.backend;
  r.impl_key = job.impl_key;
  r.case_id = job.sized.id;
  r.op = job.sized.op;
  r.peer = job.peer;
  r.check = status;
  if (status != Status::kPassed) r.check_message = job.message();
  if (!t || collective_row_gates(status)) r.error = job.message();
  r.timing = job.timing_method;
  r.bytes = static_cast<double>(job.bytes);
  if (t) {
    BenchRun run;
    run.name = run.run_name = job.name;
    run.iterations = iters;
    run.seconds = run.cpu_seconds = *t;
    r.runs.push_back(run);
  }
  r.seconds = t;
  r.gbps = job.algbw_gbps();
  CollectiveFigures c;
  c.size_bytes = job.bytes;
  c.count = job.spec.count;
  c.dtype = std::string(dtype_name(job.spec.dtype));
  if (job.spec.reduces()) c.reduce_op = std::string(reduce_op_name(job.spec.reduce));
  if (job.spec.rooted()) c.root = job.spec.root;
  c.in_place = job.spec.in_place;
  c.ranks = ranks;
  c.iters = iters;
  c.warmup = warmup;
  c.seconds_per_rank = job.seconds;
  c.algbw_gbps = job.algbw_gbps();
  c.bus_factor = job.spec.bus_factor(ranks);
  c.busbw_gbps = job.busbw_gbps(ranks);
  if (!job.peer) c.peer_busbw_gbps = peer_busbw_gbps(job, jobs, ranks);
  c.ratio_vs_peer = ratio_vs_peer(job, jobs, ranks);
  r.collective = std::move(c);
  return r;
}

}  // namespace opcert
