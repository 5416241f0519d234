#include "bench/batch_means.h"

#include <cmath>

namespace opcert {

void BatchMeans::add(double seconds) {
  open_.seconds += seconds;
  ++open_.launches;
  ++samples_;
  all_seconds_ += seconds;
}

void BatchMeans::close_batch(std::optional<double> sm_clock_mhz) {
  if (open_.launches == 0) return;
  open_.clock = sm_clock_mhz;
  if (sm_clock_mhz && *sm_clock_mhz > highest_clock_) highest_clock_ = *sm_clock_mhz;
  closed_.push_back(open_);
  open_ = Batch{};
  recompute();
}

int64_t BatchMeans::dropped_batches() const { return static_cast<int64_t>(closed_.size()) - kept_; }

double BatchMeans::mean() const {
  if (kept_samples_ > 0) return kept_seconds_ / static_cast<double>(kept_samples_);
  return samples_ > 0 ? all_seconds_ / static_cast<double>(samples_) : 0.0;
}

// Over every closed batch again: a higher clock read later can make earlier batches throttled.
void BatchMeans::recompute() {
  const double floor = throttle_fraction_ * highest_clock_;
  std::vector<double> means;
  kept_samples_ = 0;
  kept_seconds_ = 0.0;
  for (const Batch& b : closed_) {
    if (b.clock && *b.clock < floor) continue;
    means.push_back(b.seconds / static_cast<double>(b.launches));
    kept_samples_ += b.launches;
    kept_seconds_ += b.seconds;
  }
  kept_ = static_cast<int64_t>(means.size());
  rse_ = halves_gap_ = 0.0;
  if (kept_ < 2) return;
  const double n = static_cast<double>(kept_);
  double sum = 0.0;
  for (double m : means) sum += m;
  const double average = sum / n;
  if (average <= 0) return;
  double squares = 0.0;
  for (double m : means) squares += (m - average) * (m - average);
  rse_ = std::sqrt(squares / (n - 1)) / std::sqrt(n) / average;
  const std::size_t half = means.size() / 2;
  double first = 0.0, second = 0.0;
  for (std::size_t i = 0; i < half; ++i) first += means[i];
  for (std::size_t i = means.size() - half; i < means.size(); ++i) second += means[i];
  halves_gap_ = std::abs(first - second) / static_cast<double>(half) / average;
}

}  // namespace opcert
