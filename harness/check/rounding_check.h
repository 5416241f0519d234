// The rounding checks of one output (docs/TOLERANCES.md, "Rounding"): where a conforming value
// cannot cross a rounding boundary, the element must hold round-to-nearest-even's result bit for
// bit; and over the elements whose error is the final rounding's, the mean signed offset from the
// correctly rounded values must not lean beyond what chance allows (biased rounding: truncation,
// directed modes).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "model/case_result.h"
#include "opkit/output_tolerance.h"

namespace opcert {

/// Round-to-nearest-even's result into `dtype` is known for an exact value `x` that a conforming
/// computation can miss by at most `noise`: true where x - noise and x + noise round alike, and
/// always where noise is 0 (the value before rounding is exact, so a tie is decided too).
bool rounding_is_decided(opcert_dtype dtype, double x, double noise);

/// What a misrounded element did, for a vendor: "not round-to-nearest-even: 1 ulp from the
/// correctly rounded value, 1.39 ulp from the exact value", of RoundingMetrics' worst misrounding.
std::string describe_misrounding(const RoundingMetrics& rounding);

class RoundingCheck {
 public:
  explicit RoundingCheck(const OutputTolerance& tolerance);

  /// Element k of the reference (flat index `index` of the output): `got` for the exact finite
  /// `expected`, whose rounding into the output dtype is `held`. Returns true when the element is
  /// decided and `got` is not `held`.
  bool observe(std::size_t k, int64_t index, double got, double expected, double held);

  /// The counts and the bias test over everything observed.
  RoundingMetrics finish() const;

 private:
  // Keeps the misrounded element farthest (in ulps) from its correctly rounded value, the first of equals.
  void note_misrounding(opcert_dtype dtype, double got, double expected, double held);

  const OutputTolerance& tolerance_;
  bool enabled_;
  int64_t decisive_ = 0;
  int64_t misrounded_ = 0;
  int64_t worst_misrounded_ulp_ = 0;
  double worst_misrounded_exact_ulp_ = 0.0;
  // Signed errors in spacings of the output dtype, in the order observed (contiguous elements
  // share intermediates, so the standard error comes from the means of contiguous batches of
  // whole groups: OutputTolerance::bias_group).
  std::vector<float> value_errors_;      // got - expected
  std::vector<float> magnitude_errors_;  // the same, positive away from zero
  std::vector<int64_t> groups_;          // each error's group, index / bias_group
};

}  // namespace opcert
