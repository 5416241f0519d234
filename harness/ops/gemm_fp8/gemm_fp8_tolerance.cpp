// The bound of gemm_fp8's output (docs/TOLERANCES.md#gemm_fp8): the GEMM family's dot-product
// bound, with the accumulation of fp8 tensor cores.
#include "ops/common/dot_product.h"
#include "ops/gemm_fp8/gemm_fp8.h"

namespace opcert::ops::gemm_fp8 {
namespace {

// Hopper's fp8 tensor cores keep about 14 significant bits in their accumulators (DeepSeek-V3
// technical report, section 3.3.2), and torch's _scaled_mm on an H100 shows errors of that size:
// the accumulation roundoff of gemm_fp8 is 2^-14, not fp32's.
constexpr double kFp8TensorCoreRoundoff = 0x1.0p-14;

}  // namespace

void derive_tolerance(const Case& c, const ReferenceOutput& ref, OutputTolerance& t) {
  common::dot_product_tolerance(c, ref, t, kFp8TensorCoreRoundoff, 0.0);
}

}  // namespace opcert::ops::gemm_fp8
