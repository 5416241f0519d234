// gemm: c[m,n] = sum_k a[m,k] * b[n,k] + bias[n] (docs/OPS.md#gemm), before rounding to T. With
// allow_tf32 = 1 the reference stays exact: the TF32 rounding a backend may do is its error,
// which the tolerance allows for. magnitude = the formula over |every factor|; no condition.
#include <stdexcept>

#include "model/attr.h"
#include "ops/common/scaled_dot.h"
#include "ops/gemm/gemm.h"
#include "ops/gemm/gemm_tf32.h"
#include "reference/reference_support.h"

namespace opcert::ops::gemm {
namespace {

using namespace reference_detail;
using common::ScaledDot;
using common::scaled_dot_reference;

std::vector<ReferenceOutput> reference(const Case& c, std::span<const HostTensor> inputs, const SamplePlan& plan) {
  const HostTensor& a = require_input(inputs, c.op, names::kA);
  const HostTensor& b = require_input(inputs, c.op, names::kB);
  const HostTensor* bias = optional_input(inputs, names::kBias);
  const std::string layout = attr_string(c.attrs, names::kBLayout, "nk");
  if (layout != "nk" && layout != "kn") throw std::invalid_argument("gemm: b_layout must be \"nk\" or \"kn\", got \"" + layout + "\"");

  allows_tf32(c);  // validates the attribute: 0 or 1, and 1 only with fp32 operands

  require_rank(a, c.op, 2);
  require_rank(b, c.op, 2);
  ScaledDot p;
  p.a = &a;
  p.b = &b;
  p.b_is_kn = layout == "kn";
  p.m = a.spec.shape[0];
  p.k = a.spec.shape[1];
  p.n = p.b_is_kn ? b.spec.shape[1] : b.spec.shape[0];
  require_shape(b, c.op, p.b_is_kn ? std::vector<int64_t>{p.k, p.n} : std::vector<int64_t>{p.n, p.k});
  if (bias != nullptr) {
    require_shape(*bias, c.op, {p.n});
    p.bias = to_torch(*bias);
  }
  const TensorSpec& out = require_output(c, names::kC);
  if (out.shape != std::vector<int64_t>{p.m, p.n}) throw std::invalid_argument("gemm: output 'c' must be [M, N]");
  return {scaled_dot_reference(names::kC, p, sampled(plan, names::kC, p.m * p.n))};
}

}  // namespace

OPCERT_REGISTER_REFERENCE(names::kOp, reference)

}  // namespace opcert::ops::gemm
