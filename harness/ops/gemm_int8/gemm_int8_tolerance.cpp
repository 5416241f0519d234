// The bound of gemm_int8's output (docs/TOLERANCES.md#gemm_int8): an int32 output is exact (the
// rule every integer output gets); a dequantized one has the GEMM family's dot-product bound.
#include "ops/common/dot_product.h"
#include "ops/gemm_int8/gemm_int8.h"

namespace opcert::ops::gemm_int8 {

void derive_tolerance(const Case& c, const ReferenceOutput& ref, OutputTolerance& t) {
  common::dot_product_tolerance(c, ref, t, kAccumulationRoundoff, 0.0);
}

}  // namespace opcert::ops::gemm_int8
