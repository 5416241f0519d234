// The bound of gemm_fp8's output (docs/TOLERANCES.md#gemm_fp8): the GEMM family's dot-product
// bound, with the accumulation of fp8 tensor cores.
#include "ops/common/dot_product.h"
#include "ops/gemm_fp8/gemm_fp8.h"

namespace opcert::ops::gemm_fp8 {

// The accumulation roundoff of gemm_fp8 is kFp8TensorCoreRoundoff (2^-14), not fp32's.
void derive_tolerance(const Case& c, const ReferenceOutput& ref, OutputTolerance& t) {
  common::dot_product_tolerance(c, ref, t, kFp8TensorCoreRoundoff, 0.0);
}

}  // namespace opcert::ops::gemm_fp8
