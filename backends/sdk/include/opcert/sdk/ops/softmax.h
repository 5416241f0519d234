// The operands of a softmax call (docs/OPS.md "softmax"), checked against the contract once for
// every backend: x [..., N] of any rank >= 1 in fp32, fp16 or bf16, y of x's shape and dtype.
// The op's one operand contract: the harness's case builder and reference (harness/ops/softmax/)
// take the names from softmax_names rather than spelling them again.
#pragma once

#include <opcert/sdk/call_check.h>

#include <cstdint>
#include <optional>

namespace opcert::sdk {

/// The names a softmax call is made of.
namespace softmax_names {
inline constexpr const char* kOp = "softmax";
inline constexpr const char* kX = "x";  // input [..., N]
inline constexpr const char* kY = "y";  // output, x's shape and dtype
}  // namespace softmax_names

struct SoftmaxOperands {
  std::optional<Tensor> x{}, y{};
  int32_t dtype = OPCERT_DTYPE_INVALID;  // of x and y
  int64_t rows = 0;                      // the product of the leading dimensions (0 when x is empty)
  int64_t n = 0;                         // N, the last dimension, which softmax runs over
};

/// Reads and checks the call's operands; the first problem is recorded in `check` (whose `ok()`
/// says whether the operands are usable). softmax has no attributes.
inline SoftmaxOperands parse_softmax(const OpCall& /*call: no attributes*/, CallCheck& check) {
  SoftmaxOperands s;
  check.only_attributes({});
  s.x = check.input(softmax_names::kX);
  s.y = check.output(softmax_names::kY);
  if (!check.ok()) return s;
  check.dtype(*s.x, {OPCERT_DTYPE_F32, OPCERT_DTYPE_F16, OPCERT_DTYPE_BF16});
  check.require(s.x->ndim() >= 1, "x must have rank >= 1 [..., N] (got a 0-D scalar)");
  if (!check.ok()) return s;
  check.like(*s.y, *s.x);
  s.dtype = s.x->dtype();
  s.n = s.x->dim(-1);
  s.rows = s.n == 0 ? 0 : s.x->numel() / s.n;
  return s;
}

}  // namespace opcert::sdk
