#include "bench/collective_bench_job.h"

#include "bench/collective_sweep.h"

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

}  // namespace opcert
