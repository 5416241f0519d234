// The bound of gemm's output (docs/TOLERANCES.md#gemm): fp32 accumulation; with allow_tf32 the
// inputs may each be rounded to TF32 first.
#include "ops/common/dot_product.h"
#include "ops/gemm/gemm.h"
#include "ops/gemm/gemm_tf32.h"

namespace opcert::ops::gemm {

void derive_tolerance(const Case& c, const ReferenceOutput& ref, OutputTolerance& t) {
  // Input rounding: none, the backend multiplies the values it was given, unless the case allows TF32.
  const double input_roundoff = allows_tf32(c) ? kTf32UnitRoundoff : 0.0;
  common::dot_product_tolerance(c, ref, t, kAccumulationRoundoff, input_roundoff);
}

}  // namespace opcert::ops::gemm
