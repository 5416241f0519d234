// The operands of a gemm call (docs/OPS.md "gemm"), checked against the contract once for every
// backend: a [M, K], b [N, K] (b_layout "nk") or [K, N] ("kn"), an optional bias [N], c [M, N],
// all of one dtype T (fp32, fp16 or bf16); allow_tf32 0 or 1, and 1 only with fp32.
#pragma once

#include <opcert/sdk/call_check.h>
#include <opcert/sdk/ops/gemm_dims.h>

#include <cstdint>
#include <optional>

namespace opcert::sdk {

/// The names a gemm call is made of: the one spelling of its operands and attributes, which
/// the harness's op folder builds its cases with and the parser below reads.
namespace gemm_names {
inline constexpr const char* kOp = "gemm";
inline constexpr const char* kA = "a";                   // input [M, K]
inline constexpr const char* kB = "b";                   // input [N, K] (b_layout "nk") or [K, N] ("kn")
inline constexpr const char* kBias = "bias";             // optional input [N]
inline constexpr const char* kC = "c";                   // output [M, N]
inline constexpr const char* kBLayout = "b_layout";      // attribute
inline constexpr const char* kAllowTf32 = "allow_tf32";  // attribute
}  // namespace gemm_names

/// m, n, k come from GemmDims (gemm_dims.h).
struct GemmOperands : GemmDims {
  std::optional<Tensor> a{}, b{}, bias{}, c{};
  int32_t dtype = OPCERT_DTYPE_INVALID;  // T, the dtype of every operand
  BLayout b_layout = BLayout::kNK;
  bool allow_tf32 = false;  // the inputs may be rounded to TF32 (fp32 only)
};

/// Reads and checks the call's operands; the first problem is recorded in `check` (whose `ok()`
/// says whether the operands are usable). Shapes are read only once dtypes and ranks are right.
inline GemmOperands parse_gemm(const OpCall& call, CallCheck& check) {
  GemmOperands g;
  check.only_attributes({gemm_names::kBLayout, gemm_names::kAllowTf32});
  g.a = check.input(gemm_names::kA);
  g.b = check.input(gemm_names::kB);
  g.bias = check.input(gemm_names::kBias, false);
  g.c = check.output(gemm_names::kC);
  g.b_layout = enum_attr(check, call, gemm_names::kBLayout, BLayout::kNK, {{"nk", BLayout::kNK}, {"kn", BLayout::kKN}});
  g.allow_tf32 = flag_attr(check, call, gemm_names::kAllowTf32, false);
  if (!check.ok()) return g;
  check.dtype(*g.a, {OPCERT_DTYPE_F32, OPCERT_DTYPE_F16, OPCERT_DTYPE_BF16});
  g.dtype = g.a->dtype();
  for (const auto& t : {g.b, g.c, g.bias})
    if (t) check.same_dtype(*t, *g.a);
  check.require(!g.allow_tf32 || g.dtype == OPCERT_DTYPE_F32,
                "attribute 'allow_tf32' = 1 needs fp32 operands (got " + dtype_name(g.dtype) + ")");
  if (!check.ok()) return g;
  static_cast<GemmDims&>(g) = check_gemm_shapes(check, *g.a, *g.b, *g.c, g.b_layout);
  if (g.bias && check.ok()) check.shape(*g.bias, {g.n}, "[N]");
  return g;
}

}  // namespace opcert::sdk
