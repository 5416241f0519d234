#include "check/rounding_check.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "model/scalar_codec.h"

namespace opcert {
namespace {

// An element feeds the bias test where the error that need not average out stays under this
// many spacings: conforming code then leans by at most this much, whatever its errors' signs.
constexpr double kSystematicSpacings = 1.0 / 16.0;
// The bias test's thresholds: enough elements to estimate the spread from batches, a lean that
// rounding to nearest cannot show (truncation leans half a spacing), and a margin over chance.
constexpr std::size_t kBiasMinElements = 64;
constexpr std::size_t kBiasBatches = 32;
// Where elements share errors by groups, the spread is estimated from whole groups: with fewer
// than this many, the estimate is too loose to hold a false alarm's chance below 1e-4 at z 6
// (Student's t with 15 degrees of freedom), and the test does not run.
constexpr std::size_t kBiasMinGroups = 16;
constexpr double kBiasMinSpacings = 0.25;
constexpr double kBiasMinZ = 6.0;

struct Lean {
  double mean = 0.0;
  double z = 0.0;  // standard errors by which |mean| exceeds kSystematicSpacings
};

// The distinct values of `keys`, sorted.
std::vector<int64_t> distinct_of(std::vector<int64_t> keys) {
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  return keys;
}

// Each error's batch: runs of consecutive groups, `batches` of them of about equal numbers of
// groups, so that a batch is made of whole groups.
std::vector<std::size_t> batches_of(const std::vector<int64_t>& groups, const std::vector<int64_t>& distinct, std::size_t batches) {
  std::vector<std::size_t> batch(groups.size());
  for (std::size_t i = 0; i < groups.size(); ++i) {
    const auto ordinal = static_cast<std::size_t>(std::lower_bound(distinct.begin(), distinct.end(), groups[i]) - distinct.begin());
    batch[i] = ordinal * batches / distinct.size();
  }
  return batch;
}

// Mean and z of the errors. Contiguous elements share intermediates (a row's sum, a query's
// probabilities), so the mean is that of the batch means and its standard error theirs: batches
// of contiguous elements, or of whole groups where elements share errors by groups.
Lean lean_of(const std::vector<float>& errors, const std::vector<std::size_t>& batch, std::size_t batches) {
  const std::size_t n = errors.size();
  std::vector<double> sums(batches, 0.0), counts(batches, 0.0);
  for (std::size_t i = 0; i < n; ++i) {
    sums[batch[i]] += errors[i];
    counts[batch[i]] += 1.0;
  }
  Lean lean;
  for (std::size_t b = 0; b < batches; ++b) lean.mean += sums[b] / counts[b] / static_cast<double>(batches);
  double spread = 0.0;
  for (std::size_t b = 0; b < batches; ++b) {
    const double d = sums[b] / counts[b] - lean.mean;
    spread += d * d;
  }
  const double standard_error =
      std::sqrt(spread / static_cast<double>(batches - 1) / static_cast<double>(batches));
  const double excess = std::fabs(lean.mean) - kSystematicSpacings;
  lean.z = excess <= 0.0 ? 0.0 : standard_error > 0.0 ? excess / standard_error : std::numeric_limits<double>::infinity();
  return lean;
}

}  // namespace

bool rounding_is_decided(opcert_dtype dtype, double x, double noise) {
  if (noise == 0.0) return true;
  if (!(noise > 0.0)) return false;
  return round_to(dtype, x - noise) == round_to(dtype, x + noise);
}

RoundingCheck::RoundingCheck(const OutputTolerance& tolerance)
    : tolerance_(tolerance), enabled_(tolerance.rounding_checks && static_cast<bool>(tolerance.noise)) {}

bool RoundingCheck::observe(std::size_t k, int64_t index, double got, double expected, double held) {
  if (!enabled_) return false;
  const opcert_dtype dtype = tolerance_.dtype;
  bool misrounded = false;
  const double noise = tolerance_.noise(k);
  if (rounding_is_decided(dtype, expected, noise)) {
    ++decisive_;
    misrounded = got != held;
    misrounded_ += misrounded;
    if (misrounded) note_misrounding(dtype, got, expected, held);
  }
  if (tolerance_.rule != OutputTolerance::Rule::kBound || expected == 0.0) return misrounded;
  const double spacing = grid_spacing(dtype, expected);
  const double systematic = tolerance_.bias_noise ? tolerance_.bias_noise(k) : noise;
  // Against the correctly rounded value, not the exact one: round-to-nearest-even's own errors
  // average to zero only over evenly spread values, and a case's values may not be (K = 1 with
  // one scale for the whole tensor holds few distinct significands).
  const double error = (got - held) / spacing;
  // Farther than one spacing is no rounding's doing: a gross error, left to the bound.
  if (systematic <= kSystematicSpacings * spacing && std::fabs(error) <= 1.0) {
    value_errors_.push_back(static_cast<float>(error));
    magnitude_errors_.push_back(static_cast<float>(std::signbit(expected) ? -error : error));
    groups_.push_back(index / static_cast<int64_t>(std::max<std::size_t>(tolerance_.bias_group, 1)));
  }
  return misrounded;
}

void RoundingCheck::note_misrounding(opcert_dtype dtype, double got, double expected, double held) {
  const int64_t ulps = ulp_distance(dtype, got, held);
  if (ulps <= worst_misrounded_ulp_) return;
  worst_misrounded_ulp_ = ulps;
  const double spacing = grid_spacing(dtype, expected);
  worst_misrounded_exact_ulp_ = spacing > 0.0 ? std::fabs(got - expected) / spacing : 0.0;
}

std::string describe_misrounding(const RoundingMetrics& r) {
  return fmt::format("not round-to-nearest-even: {} ulp from the correctly rounded value, {:.3g} ulp from the exact value",
                     r.worst_misrounded_ulp, r.worst_misrounded_exact_ulp);
}

RoundingMetrics RoundingCheck::finish() const {
  RoundingMetrics r;
  r.decisive = decisive_;
  r.misrounded = misrounded_;
  r.worst_misrounded_ulp = worst_misrounded_ulp_;
  r.worst_misrounded_exact_ulp = worst_misrounded_exact_ulp_;
  r.bias_elements = static_cast<int64_t>(value_errors_.size());
  if (value_errors_.size() < kBiasMinElements) return r;
  // Without groups every element is its own, and batches cut anywhere; with them, whole groups.
  std::size_t batches = kBiasBatches;
  std::vector<std::size_t> batch(groups_.size());
  if (tolerance_.bias_group > 1) {
    const std::vector<int64_t> distinct = distinct_of(groups_);
    if (distinct.size() < kBiasMinGroups) return r;
    batches = std::min(kBiasBatches, distinct.size());
    batch = batches_of(groups_, distinct, batches);
  } else {
    for (std::size_t i = 0; i < batch.size(); ++i) batch[i] = i * batches / batch.size();
  }
  const Lean by_value = lean_of(value_errors_, batch, batches), by_magnitude = lean_of(magnitude_errors_, batch, batches);
  const bool magnitude = by_magnitude.z > by_value.z || (by_magnitude.z == by_value.z && std::fabs(by_magnitude.mean) >= std::fabs(by_value.mean));
  const Lean& lean = magnitude ? by_magnitude : by_value;
  r.bias_ulp = lean.mean;
  r.bias_direction = magnitude ? "magnitude" : "value";
  r.bias_z = lean.z;
  r.bias_batches = static_cast<int64_t>(batches);
  r.biased = std::fabs(lean.mean) >= kBiasMinSpacings && lean.z >= kBiasMinZ;
  return r;
}

}  // namespace opcert
