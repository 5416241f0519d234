#include "ops/gemm/gemm_tf32.h"

#include <fmt/format.h>

#include <stdexcept>

#include "model/dtype.h"
#include "ops/gemm/gemm.h"

namespace opcert::ops::gemm {

bool allows_tf32(const Case& c) {
  const int64_t allow = attr_int(c.attrs, names::kAllowTf32, 0);
  if (allow != 0 && allow != 1) throw std::invalid_argument(fmt::format("gemm: allow_tf32 must be 0 or 1, not {}", allow));
  if (allow == 0) return false;
  const TensorSpec* a = c.find_input(names::kA);
  if (a == nullptr || a->dtype != OPCERT_DTYPE_F32)
    throw std::invalid_argument(fmt::format("gemm: allow_tf32 = 1 needs fp32 operands (TF32 rounds fp32 inputs); a is {}",
                                            a ? dtype_name(a->dtype) : std::string_view("missing")));
  return true;
}

}  // namespace opcert::ops::gemm
