#include "bench/bench_job.h"

#include <algorithm>

namespace opcert {
namespace {

std::vector<double> repetitions_of(const std::vector<ReportedRun>& runs) {
  std::vector<double> s;
  for (const auto& r : runs)
    if (r.aggregate.empty()) s.push_back(r.seconds);
  std::sort(s.begin(), s.end());
  return s;
}

double median_of_sorted(const std::vector<double>& s) {
  const std::size_t n = s.size();
  return n % 2 == 1 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
}

}  // namespace

std::optional<double> BenchJob::typical_seconds() const {
  const auto reps = repetitions_of(reported);
  if (!reps.empty()) return median_of_sorted(reps);
  for (const auto& r : reported)
    if (r.aggregate == "median") return r.seconds;
  return std::nullopt;
}

std::optional<double> BenchJob::spread() const {
  const auto reps = repetitions_of(reported);
  if (reps.size() < 2) return std::nullopt;
  const double median = median_of_sorted(reps);
  if (median <= 0) return std::nullopt;
  return std::max(reps.back() - median, median - reps.front()) / median;
}

std::optional<double> percent_of_copy(const BenchJob& job, const std::vector<BenchJob>& jobs) {
  if (!job.copy_job || !job.error.empty()) return std::nullopt;
  const BenchJob& copy = jobs.at(*job.copy_job);
  const auto mine = job.typical_seconds();
  const auto copy_time = copy.error.empty() ? copy.typical_seconds() : std::nullopt;
  if (!mine || !copy_time || *mine <= 0) return std::nullopt;
  return 100.0 * *copy_time / *mine;
}

}  // namespace opcert
