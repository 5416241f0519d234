// gemm's work (docs/OPS.md "Work model"): 2·M·N·K flops at the operands' tensor-core rate, or at
// the TF32 rate a case that allows TF32 permits.
#include "model/dtype.h"
#include "ops/common/dot_product.h"
#include "ops/gemm/gemm.h"
#include "ops/gemm/gemm_tf32.h"

namespace opcert::ops::gemm {

WorkModel work(const Case& c) {
  const auto& a = work_operand(c, names::kA, 2);
  return common::dot_product_work(c, std::string(allows_tf32(c) ? kTf32PeakKey : dtype_name(a.dtype)));
}

}  // namespace opcert::ops::gemm
