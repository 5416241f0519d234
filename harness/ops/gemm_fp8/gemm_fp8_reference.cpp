// gemm_fp8: scaled fp8 GEMM with per-tensor, per-token x per-channel or 1x128 / 128x128 block
// scales (docs/OPS.md#gemm_fp8), before rounding to the output dtype. magnitude = the formula
// over |every factor|; no condition.
#include <fmt/format.h>

#include <stdexcept>

#include "model/attr.h"
#include "ops/common/scaled_dot.h"
#include "ops/gemm_fp8/gemm_fp8.h"
#include "reference/reference_support.h"

namespace opcert::ops::gemm_fp8 {
namespace {

using namespace reference_detail;
using common::ScaledDot;
using common::scaled_dot_reference;

bool is_fp8(opcert_dtype d) { return d == OPCERT_DTYPE_F8_E4M3FN || d == OPCERT_DTYPE_F8_E5M2; }

std::vector<ReferenceOutput> reference(const Case& c, std::span<const HostTensor> inputs, const SamplePlan& plan) {
  const HostTensor& a = require_input(inputs, c.op, names::kA);
  const HostTensor& b = require_input(inputs, c.op, names::kB);
  const HostTensor& a_scale = require_input(inputs, c.op, names::kAScale);
  const HostTensor& b_scale = require_input(inputs, c.op, names::kBScale);
  require_rank(a, c.op, 2);
  require_rank(b, c.op, 2);
  if (!is_fp8(a.spec.dtype) || !is_fp8(b.spec.dtype)) throw std::invalid_argument("gemm_fp8: 'a' and 'b' must be fp8");
  ScaledDot p;
  p.a = &a;
  p.b = &b;
  p.m = a.spec.shape[0];
  p.k = a.spec.shape[1];
  p.n = b.spec.shape[0];
  require_shape(b, c.op, {p.n, p.k});

  const std::string scaling = attr_string(c.attrs, names::kScaling, "tensor");
  if (scaling == "tensor") {
    require_shape(a_scale, c.op, {1});
    require_shape(b_scale, c.op, {1});
    p.a_weight = to_torch(a_scale).expand({p.m, 1});
    p.b_weight = to_torch(b_scale).expand({p.n, 1});
  } else if (scaling == "channel") {
    require_shape(a_scale, c.op, {p.m});
    require_shape(b_scale, c.op, {p.n});
    p.a_weight = to_torch(a_scale).unsqueeze(1);
    p.b_weight = to_torch(b_scale).unsqueeze(1);
  } else if (scaling == "block") {
    const int64_t block = attr_int(c.attrs, names::kBlockSize, 128);
    if (block <= 0) throw std::invalid_argument(fmt::format("gemm_fp8: block_size must be positive, got {}", block));
    const int64_t k_blocks = (p.k + block - 1) / block;
    const int64_t n_blocks = (p.n + block - 1) / block;
    require_shape(a_scale, c.op, {p.m, k_blocks});
    require_shape(b_scale, c.op, {n_blocks, k_blocks});
    p.block_k = block;
    p.a_weight = to_torch(a_scale);
    // Row n of the B weights is the scale row of its 128-row block.
    std::vector<int64_t> scale_row(static_cast<std::size_t>(p.n));
    for (int64_t n = 0; n < p.n; ++n) scale_row[static_cast<std::size_t>(n)] = n / block;
    p.b_weight = to_torch(b_scale).index_select(0, index_tensor(scale_row));
  } else {
    throw std::invalid_argument("gemm_fp8: scaling must be \"tensor\", \"channel\" or \"block\", got \"" + scaling + "\"");
  }
  if (const HostTensor* bias = optional_input(inputs, names::kBias)) {
    require_shape(*bias, c.op, {p.n});
    p.bias = to_torch(*bias);
  }
  const TensorSpec& out = require_output(c, names::kC);
  if (out.shape != std::vector<int64_t>{p.m, p.n}) throw std::invalid_argument("gemm_fp8: output 'c' must be [M, N]");
  return {scaled_dot_reference(names::kC, p, sampled(plan, names::kC, p.m * p.n))};
}

}  // namespace

OPCERT_REGISTER_REFERENCE(names::kOp, reference)

}  // namespace opcert::ops::gemm_fp8
