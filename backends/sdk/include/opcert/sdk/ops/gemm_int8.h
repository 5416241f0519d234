// The operands of a gemm_int8 call (docs/OPS.md "gemm_int8"), checked against the contract once for
// every backend: a [M, K] and b [N, K] in int8, c [M, N] in int32 (the exact sum; scales, if
// given, do not enter it and are ignored, a bias is refused) or bf16/fp16 (dequantized: fp32
// a_scale [M] and b_scale [N] required, an optional bias [N] in the output dtype).
#pragma once

#include <opcert/sdk/call_check.h>
#include <opcert/sdk/ops/gemm_dims.h>

#include <cstdint>
#include <optional>

namespace opcert::sdk {

/// The names a gemm_int8 call is made of: the one spelling of its operands and attributes, which
/// the harness's op folder builds its cases with and the parser below reads.
namespace gemm_int8_names {
inline constexpr const char* kOp = "gemm_int8";
inline constexpr const char* kA = "a";             // input [M, K], int8
inline constexpr const char* kB = "b";             // input [N, K], int8
inline constexpr const char* kAScale = "a_scale";  // input [M], fp32 (float output only)
inline constexpr const char* kBScale = "b_scale";  // input [N], fp32 (float output only)
inline constexpr const char* kBias = "bias";       // optional input [N] (float output only)
inline constexpr const char* kC = "c";             // output [M, N]
}  // namespace gemm_int8_names

/// m, n, k come from GemmDims (gemm_dims.h).
struct GemmInt8Operands : GemmDims {
  std::optional<Tensor> a{}, b{}, a_scale{}, b_scale{}, bias{}, c{};
  bool dequantize = false;  // c is bf16/fp16: scales (and the bias) apply
};

/// Reads and checks the call's operands; the first problem is recorded in `check` (whose `ok()`
/// says whether the operands are usable). gemm_int8 has no attributes.
inline GemmInt8Operands parse_gemm_int8(const OpCall& /*call: no attributes*/, CallCheck& check) {
  GemmInt8Operands g;
  check.only_attributes({});
  g.a = check.input(gemm_int8_names::kA);
  g.b = check.input(gemm_int8_names::kB);
  g.c = check.output(gemm_int8_names::kC);
  if (!check.ok()) return g;
  check.dtype(*g.c, {OPCERT_DTYPE_I32, OPCERT_DTYPE_BF16, OPCERT_DTYPE_F16});
  g.dequantize = g.c->dtype() != OPCERT_DTYPE_I32;
  g.a_scale = check.input(gemm_int8_names::kAScale, g.dequantize);
  g.b_scale = check.input(gemm_int8_names::kBScale, g.dequantize);
  g.bias = check.input(gemm_int8_names::kBias, false);
  check.dtype(*g.a, {OPCERT_DTYPE_I8});
  check.dtype(*g.b, {OPCERT_DTYPE_I8});
  if (!check.ok()) return g;
  static_cast<GemmDims&>(g) = check_gemm_shapes(check, *g.a, *g.b, *g.c);
  if (!check.ok()) return g;
  if (!g.dequantize) {
    check.require(!g.bias, "bias is only defined for dequantized (bf16/fp16) outputs, not int32");
    return g;
  }
  check.dtype(*g.a_scale, {OPCERT_DTYPE_F32});
  check.dtype(*g.b_scale, {OPCERT_DTYPE_F32});
  check.shape(*g.a_scale, {g.m}, "[M]");
  check.shape(*g.b_scale, {g.n}, "[N]");
  if (g.bias) {
    check.same_dtype(*g.bias, *g.c);
    check.shape(*g.bias, {g.n}, "[N]");
  }
  return g;
}

}  // namespace opcert::sdk
