// gemm_int8: the exact int32 sum, or a_scale[m] * b_scale[n] * acc + bias[n] when dequantized
// (docs/OPS.md#gemm_int8), before rounding to the output dtype. magnitude = the formula over
// |every factor|; no condition.
#include <stdexcept>

#include "ops/common/scaled_dot.h"
#include "reference/reference_support.h"

namespace opcert::ops::gemm_int8 {
namespace {

using namespace reference_detail;
using common::ScaledDot;
using common::scaled_dot_reference;

std::vector<ReferenceOutput> reference(const Case& c, std::span<const HostTensor> inputs, const SamplePlan& plan) {
  const HostTensor& a = require_input(inputs, c.op, "a");
  const HostTensor& b = require_input(inputs, c.op, "b");
  require_rank(a, c.op, 2);
  require_rank(b, c.op, 2);
  if (a.spec.dtype != OPCERT_DTYPE_I8 || b.spec.dtype != OPCERT_DTYPE_I8)
    throw std::invalid_argument("gemm_int8: 'a' and 'b' must be int8");
  ScaledDot p;
  p.a = &a;
  p.b = &b;
  p.m = a.spec.shape[0];
  p.k = a.spec.shape[1];
  p.n = b.spec.shape[0];
  require_shape(b, c.op, {p.n, p.k});

  const TensorSpec& out = require_output(c, "c");
  if (out.shape != std::vector<int64_t>{p.m, p.n}) throw std::invalid_argument("gemm_int8: output 'c' must be [M, N]");
  if (out.dtype != OPCERT_DTYPE_I32) {  // dequantized
    const HostTensor& a_scale = require_input(inputs, c.op, "a_scale");
    const HostTensor& b_scale = require_input(inputs, c.op, "b_scale");
    require_shape(a_scale, c.op, {p.m});
    require_shape(b_scale, c.op, {p.n});
    p.a_weight = to_torch(a_scale).unsqueeze(1);
    p.b_weight = to_torch(b_scale).unsqueeze(1);
    if (const HostTensor* bias = optional_input(inputs, "bias")) {
      require_shape(*bias, c.op, {p.n});
      p.bias = to_torch(*bias);
    }
  }
  return {scaled_dot_reference("c", p, sampled(plan, "c", p.m * p.n))};
}

}  // namespace

OPCERT_REGISTER_REFERENCE("gemm_int8", reference)

}  // namespace opcert::ops::gemm_int8
