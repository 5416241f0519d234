// The mutants of softmax over the last dimension in fp64, and its defects.
#include <opcert/sdk/ops/softmax.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "model/scalar_codec.h"
#include "mutant_op.h"
#include "naive_values.h"

namespace opcert::mutants {
namespace {

using sdk::Tensor;

// This file's own defects (defect.h holds those that several ops share).
constexpr Defect kLastDropped = own_defect(0);           // the last element left out of the row's sum
constexpr Defect kExpRounded = own_defect(1);            // exp(x - max) stored in the output dtype between the passes
constexpr Defect kNonFiniteRowsZeroed = own_defect(2);   // rows holding NaN or +inf come back as zeros

void naive_softmax(const sdk::SoftmaxOperands& s, Defect defect) {
  const Tensor &x = *s.x, &y = *s.y;
  const int64_t N = s.n, rows = s.rows;
  for (int64_t r = 0; r < rows; ++r) {
    double mx = -std::numeric_limits<double>::infinity(), sum = 0.0;
    for (int64_t i = 0; i < N; ++i) mx = std::max(mx, ld(x, r * N + i));
    const int64_t summed = defect == kLastDropped ? N - 1 : N;
    // oneDNN 2.6's bf16 softmax keeps exp(x - max) in the output dtype between its passes.
    const auto e = [&](int64_t i) {
      const double v = std::exp(ld(x, r * N + i) - mx);
      return defect == kExpRounded ? round_to(static_cast<opcert_dtype>(y.dtype()), v) : v;
    };
    bool non_finite_row = false;
    for (int64_t i = 0; i < N; ++i) non_finite_row = non_finite_row || std::isnan(ld(x, r * N + i)) || ld(x, r * N + i) == std::numeric_limits<double>::infinity();
    for (int64_t i = 0; i < summed; ++i) sum += e(i);
    for (int64_t i = 0; i < N; ++i)
      st(y, r * N + i, defect == kNonFiniteRowsZeroed && non_finite_row ? 0.0 : e(i) / sum, defect);
  }
  if (defect == Defect::kWritePastEnd) st(y, rows * N, 0.5);
  if (defect == Defect::kNanSpread && any_non_finite(x))
    for (int64_t i = 0; i < rows * N; ++i) st(y, i, std::numeric_limits<double>::quiet_NaN());
}

std::vector<sdk::Implementation> softmax_mutants() {
  return mutant_variants<sdk::SoftmaxOperands>({"softmax", sdk::parse_softmax, naive_softmax, nullptr,
      {{Defect::kNone, "correct"},
       {Defect::kWritePastEnd, "write_past_end"},
       {kLastDropped, "last_dropped"},
       {kExpRounded, "exp_rounded"},
       {kNonFiniteRowsZeroed, "non_finite_rows_zeroed"},
       {Defect::kNanSpread, "nan_spread"},
       {Defect::kTruncatedOutput, "truncated_output"}}});
}

}  // namespace

OPCERT_REGISTER_IMPLEMENTATIONS(MutantImplementations, "softmax", softmax_mutants)

}  // namespace opcert::mutants
