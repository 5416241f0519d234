// The bound of gemm_int8's output (docs/TOLERANCES.md#gemm_int8): an int32 output is exact (the
// rule every integer output gets). A dequantized one is derived from the contract: the int32 sum
// is exact, so only the fp32 epilogue and the final rounding remain, not a summation's error.
#include "model/scalar_codec.h"
#include "ops/common/dot_product.h"
#include "ops/gemm_int8/gemm_int8.h"

namespace opcert::ops::gemm_int8 {
namespace {

// The epilogue's fp32 roundings: acc converted to fp32, a_scale · b_scale, their product with acc,
// and the bias added; each errs by at most ua of |a_scale · b_scale · acc| + |bias| (the reference's
// magnitude of a dequantized output). Doubled for margin, as every bound of the GEMM family is.
constexpr double kEpilogueRoundings = 2.0 * 4.0;

}  // namespace

void derive_tolerance(const Case& c, const ReferenceOutput& ref, OutputTolerance& t) {
  // Exact and rounding fills: only the final rounding (the family's rule).
  common::dot_product_tolerance(c, ref, t, kAccumulationRoundoff, 0.0);
  if (c.fill_mode != FillMode::kRandom) return;
  const double floor = least_subnormal(t.dtype);
  const ReferenceOutput* r = &ref;
  t.absolute = [=](std::size_t i) { return floor + kEpilogueRoundings * kAccumulationRoundoff * r->magnitude_at(i); };
}

}  // namespace opcert::ops::gemm_int8
