#include "model/bench_record.h"

#include <algorithm>

namespace opcert {
namespace {

std::vector<double> repetitions_of(const std::vector<BenchRun>& runs) {
  std::vector<double> s = repetition_seconds(runs);
  std::sort(s.begin(), s.end());
  return s;
}

double median_of_sorted(const std::vector<double>& s) {
  const std::size_t n = s.size();
  return n % 2 == 1 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
}

}  // namespace

std::optional<double> typical_seconds(const std::vector<BenchRun>& runs) {
  const auto reps = repetitions_of(runs);
  if (!reps.empty()) return median_of_sorted(reps);
  for (const auto& r : runs)
    if (r.aggregate == "median") return r.seconds;
  return std::nullopt;
}

std::optional<double> repetition_spread(const std::vector<BenchRun>& runs) {
  const auto reps = repetitions_of(runs);
  if (reps.size() < 2) return std::nullopt;
  const double median = median_of_sorted(reps);
  if (median <= 0) return std::nullopt;
  return std::max(reps.back() - median, median - reps.front()) / median;
}

std::vector<double> repetition_seconds(const std::vector<BenchRun>& runs) {
  std::vector<double> s;
  for (const auto& r : runs)
    if (r.aggregate.empty() && r.error.empty()) s.push_back(r.seconds);
  return s;
}

std::vector<GpuReading> gpu_readings(const std::vector<BenchRun>& runs) {
  std::vector<GpuReading> readings;
  for (const auto& r : runs)
    if (r.sampling)
      for (const auto* reading : {&r.sampling->conditions.start, &r.sampling->conditions.end})
        if (*reading) readings.push_back(**reading);
  return readings;
}

bool is_host_bound(const std::vector<BenchRun>& runs) {
  std::vector<double> shares;
  for (const auto& r : runs)
    if (r.sampling && r.sampling->host_share) shares.push_back(*r.sampling->host_share);
  if (shares.empty()) return false;
  std::sort(shares.begin(), shares.end());
  return median_of_sorted(shares) >= kHostBoundShare;
}

std::optional<double> largest_noise(const std::vector<BenchRun>& runs) {
  std::optional<double> largest;
  for (const auto& r : runs)
    if (r.sampling && r.error.empty()) largest = std::max(largest.value_or(0.0), r.sampling->noise);
  return largest;
}

}  // namespace opcert
