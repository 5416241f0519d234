// gemm_int8's work (docs/OPS.md "Work model"): 2·M·N·K operations at the rate of a's dtype, which picks
// the tensor-core path (a and b may mix fp8 formats).
#include "model/dtype.h"
#include "ops/common/dot_product.h"
#include "ops/gemm_int8/gemm_int8.h"

namespace opcert::ops::gemm_int8 {

WorkModel work(const Case& c) {
  return common::dot_product_work(c, std::string(dtype_name(work_operand(c, names::kA, 2).dtype)));
}

}  // namespace opcert::ops::gemm_int8
