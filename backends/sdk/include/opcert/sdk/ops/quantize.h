// The operands of a quantize call (docs/OPS.md "quantize"), checked against the contract once for
// every backend: x [M, K] in fp32, fp16 or bf16; q [M, K] in int8, fp8_e4m3fn or fp8_e5m2; scale
// fp32, [M] per token (granularity "token", the default) or [1] per tensor ("tensor").
#pragma once

#include <opcert/sdk/call_check.h>

#include <cstdint>
#include <optional>

namespace opcert::sdk {

/// The names a quantize call is made of: the one spelling of its operands and attributes, which
/// the harness's op folder builds its cases with and the parser below reads.
namespace quantize_names {
inline constexpr const char* kOp = "quantize";
inline constexpr const char* kX = "x";                      // input [M, K]
inline constexpr const char* kQ = "q";                      // output [M, K], int8 or fp8
inline constexpr const char* kScale = "scale";              // output [M] (granularity "token") or [1] ("tensor")
inline constexpr const char* kGranularity = "granularity";  // attribute
}  // namespace quantize_names

/// What one scale covers (attribute `granularity`).
enum class QuantGranularity { kToken, kTensor };

struct QuantizeOperands {
  std::optional<Tensor> x{}, q{}, scale{};
  QuantGranularity granularity = QuantGranularity::kToken;
  int64_t m = 0, k = 0;
};

/// qmax of a quantized dtype: 127 (int8), 448 (fp8_e4m3fn), 57344 (fp8_e5m2); 0 for another.
inline float quantize_qmax(int32_t q_dtype) {
  switch (q_dtype) {
    case OPCERT_DTYPE_I8: return 127.0f;
    case OPCERT_DTYPE_F8_E4M3FN: return 448.0f;
    case OPCERT_DTYPE_F8_E5M2: return 57344.0f;
    default: return 0.0f;
  }
}

/// Reads and checks the call's operands; the first problem is recorded in `check` (whose `ok()`
/// says whether the operands are usable).
inline QuantizeOperands parse_quantize(const OpCall& call, CallCheck& check) {
  QuantizeOperands g;
  check.only_attributes({quantize_names::kGranularity});
  g.x = check.input(quantize_names::kX);
  g.q = check.output(quantize_names::kQ);
  g.scale = check.output(quantize_names::kScale);
  g.granularity = enum_attr(check, call, quantize_names::kGranularity, QuantGranularity::kToken,
                            {{"token", QuantGranularity::kToken}, {"tensor", QuantGranularity::kTensor}});
  if (!check.ok()) return g;
  check.dtype(*g.x, {OPCERT_DTYPE_F32, OPCERT_DTYPE_F16, OPCERT_DTYPE_BF16});
  check.dtype(*g.q, {OPCERT_DTYPE_I8, OPCERT_DTYPE_F8_E4M3FN, OPCERT_DTYPE_F8_E5M2});
  check.dtype(*g.scale, {OPCERT_DTYPE_F32});
  if (!check.ok() || !check.rank(*g.x, 2, "[M, K]")) return g;
  g.m = g.x->dim(0);
  g.k = g.x->dim(1);
  check.shape(*g.q, {g.m, g.k}, "[M, K]");
  if (g.granularity == QuantGranularity::kTensor)
    check.require(g.scale->ndim() == 1 && g.scale->dim(0) == 1,
                  "scale has shape " + shape_string(*g.scale) + ", expected [1] for granularity \"tensor\"");
  else
    check.shape(*g.scale, {g.m}, "[M]");
  return g;
}

}  // namespace opcert::sdk
