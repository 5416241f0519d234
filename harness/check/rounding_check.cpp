#include "check/rounding_check.h"

#include <cmath>
#include <limits>

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
constexpr double kBiasMinSpacings = 0.25;
constexpr double kBiasMinZ = 6.0;

struct Lean {
  double mean = 0.0;
  double z = 0.0;  // standard errors by which |mean| exceeds kSystematicSpacings
};

// Mean and z of errors in observation order. Contiguous elements share intermediates (a row's
// sum, a query's probabilities), so the standard error is that of the means of contiguous batches.
Lean lean_of(const std::vector<float>& errors) {
  const std::size_t n = errors.size();
  double total = 0.0;
  for (float e : errors) total += e;
  Lean lean;
  lean.mean = total / static_cast<double>(n);
  double spread = 0.0;
  std::size_t begin = 0;
  for (std::size_t b = 0; b < kBiasBatches; ++b) {
    const std::size_t end = n * (b + 1) / kBiasBatches;
    double sum = 0.0;
    for (std::size_t i = begin; i < end; ++i) sum += errors[i];
    const double d = sum / static_cast<double>(end - begin) - lean.mean;
    spread += d * d;
    begin = end;
  }
  const double standard_error = std::sqrt(spread / static_cast<double>(kBiasBatches - 1) / static_cast<double>(kBiasBatches));
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

bool RoundingCheck::observe(std::size_t k, double got, double expected, double held) {
  if (!enabled_) return false;
  const opcert_dtype dtype = tolerance_.dtype;
  bool misrounded = false;
  const double noise = tolerance_.noise(k);
  if (rounding_is_decided(dtype, expected, noise)) {
    ++decisive_;
    misrounded = got != held;
    misrounded_ += misrounded;
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
  }
  return misrounded;
}

RoundingMetrics RoundingCheck::finish() const {
  RoundingMetrics r;
  r.decisive = decisive_;
  r.misrounded = misrounded_;
  r.bias_elements = static_cast<int64_t>(value_errors_.size());
  if (value_errors_.size() < kBiasMinElements) return r;
  const Lean by_value = lean_of(value_errors_), by_magnitude = lean_of(magnitude_errors_);
  const bool magnitude = by_magnitude.z > by_value.z || (by_magnitude.z == by_value.z && std::fabs(by_magnitude.mean) >= std::fabs(by_value.mean));
  const Lean& lean = magnitude ? by_magnitude : by_value;
  r.bias_ulp = lean.mean;
  r.bias_direction = magnitude ? "magnitude" : "value";
  r.bias_z = lean.z;
  r.biased = std::fabs(lean.mean) >= kBiasMinSpacings && lean.z >= kBiasMinZ;
  return r;
}

}  // namespace opcert
