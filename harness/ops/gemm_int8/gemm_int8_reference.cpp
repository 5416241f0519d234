// gemm_int8: the exact int32 sum, or a_scale[m] * b_scale[n] * acc + bias[n] when dequantized
// (docs/OPS.md#gemm_int8), before rounding to the output dtype. magnitude: for int32, the formula
// over |every factor|; dequantized, |a_scale · b_scale · acc| + |bias|, the terms of the fp32
// epilogue, since the int32 sum carries no error (docs/TOLERANCES.md#gemm_int8); no condition.
#include <cmath>
#include <stdexcept>
#include <utility>

#include "ops/common/scaled_dot.h"
#include "ops/gemm_int8/gemm_int8.h"
#include "reference/reference_support.h"

namespace opcert::ops::gemm_int8 {
namespace {

using namespace reference_detail;
using common::ScaledDot;
using common::scaled_dot_reference;

// |scaled sum| + |bias| for each element: value - bias is the scaled sum, exact to fp64's rounding.
void epilogue_magnitude(ReferenceOutput& r, const ScaledDot& p) {
  const at::Tensor bias = p.bias.defined() ? p.bias.contiguous() : at::Tensor();
  const double* b = bias.defined() ? bias.data_ptr<double>() : nullptr;
  for (std::size_t s = 0; s < r.values.size(); ++s) {
    const int64_t flat = r.indices.empty() ? static_cast<int64_t>(s) : r.indices[s];
    const double bias_n = b != nullptr ? b[flat % p.n] : 0.0;
    r.magnitude[s] = std::fabs(r.values[s] - bias_n) + std::fabs(bias_n);
  }
}

std::vector<ReferenceOutput> reference(const Case& c, std::span<const HostTensor> inputs, const SamplePlan& plan) {
  const HostTensor& a = require_input(inputs, c.op, names::kA);
  const HostTensor& b = require_input(inputs, c.op, names::kB);
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

  const TensorSpec& out = require_output(c, names::kC);
  if (out.shape != std::vector<int64_t>{p.m, p.n}) throw std::invalid_argument("gemm_int8: output 'c' must be [M, N]");
  if (out.dtype != OPCERT_DTYPE_I32) {  // dequantized
    const HostTensor& a_scale = require_input(inputs, c.op, names::kAScale);
    const HostTensor& b_scale = require_input(inputs, c.op, names::kBScale);
    require_shape(a_scale, c.op, {p.m});
    require_shape(b_scale, c.op, {p.n});
    p.a_weight = to_torch(a_scale).unsqueeze(1);
    p.b_weight = to_torch(b_scale).unsqueeze(1);
    if (const HostTensor* bias = optional_input(inputs, names::kBias)) {
      require_shape(*bias, c.op, {p.n});
      p.bias = to_torch(*bias);
    }
  }
  ReferenceOutput r = scaled_dot_reference(names::kC, p, sampled(plan, names::kC, p.m * p.n));
  if (out.dtype != OPCERT_DTYPE_I32) epilogue_magnitude(r, p);
  return {std::move(r)};
}

}  // namespace

OPCERT_REGISTER_REFERENCE(names::kOp, reference)

}  // namespace opcert::ops::gemm_int8
