// The operands of a gemm_fp8 call (docs/OPS.md "gemm_fp8"), checked against the contract once for
// every backend: a [M, K] and b [N, K] in e4m3fn or e5m2, fp32 scales per tensor ([1] each), per
// token × per channel ([M] and [N]) or per block (1 × block_size on a, block_size × block_size on
// b), an optional bias [N] in the output dtype, c [M, N] in bf16, fp16 or fp32.
#pragma once

#include <opcert/sdk/call_check.h>
#include <opcert/sdk/ops/gemm_dims.h>

#include <cstdint>
#include <optional>
#include <string>

namespace opcert::sdk {

/// The names a gemm_fp8 call is made of: the one spelling of its operands and attributes, which
/// the harness's op folder builds its cases with and the parser below reads.
namespace gemm_fp8_names {
inline constexpr const char* kOp = "gemm_fp8";
inline constexpr const char* kA = "a";                   // input [M, K], fp8
inline constexpr const char* kB = "b";                   // input [N, K], fp8
inline constexpr const char* kAScale = "a_scale";        // input, fp32, shaped by scaling
inline constexpr const char* kBScale = "b_scale";        // input, fp32, shaped by scaling
inline constexpr const char* kBias = "bias";             // optional input [N]
inline constexpr const char* kC = "c";                   // output [M, N]
inline constexpr const char* kScaling = "scaling";       // attribute
inline constexpr const char* kBlockSize = "block_size";  // attribute
}  // namespace gemm_fp8_names

/// How a_scale and b_scale apply (attribute `scaling`).
enum class Fp8Scaling { kTensor, kChannel, kBlock };

/// m, n, k come from GemmDims (gemm_dims.h).
struct GemmFp8Operands : GemmDims {
  std::optional<Tensor> a{}, b{}, a_scale{}, b_scale{}, bias{}, c{};
  Fp8Scaling scaling = Fp8Scaling::kTensor;
  int64_t block = 128;  // block_size: the block edge along K (and N) for Fp8Scaling::kBlock

  /// ceil(v / block): scale blocks covering v elements.
  int64_t blocks(int64_t v) const { return (v + block - 1) / block; }
};

/// Reads and checks the call's operands; the first problem is recorded in `check` (whose `ok()`
/// says whether the operands are usable). Shapes are read only once dtypes and ranks are right.
inline GemmFp8Operands parse_gemm_fp8(const OpCall& call, CallCheck& check) {
  GemmFp8Operands g;
  check.only_attributes({gemm_fp8_names::kScaling, gemm_fp8_names::kBlockSize});
  g.a = check.input(gemm_fp8_names::kA);
  g.b = check.input(gemm_fp8_names::kB);
  g.a_scale = check.input(gemm_fp8_names::kAScale);
  g.b_scale = check.input(gemm_fp8_names::kBScale);
  g.bias = check.input(gemm_fp8_names::kBias, false);
  g.c = check.output(gemm_fp8_names::kC);
  g.scaling = enum_attr(check, call, gemm_fp8_names::kScaling, Fp8Scaling::kTensor,
                        {{"tensor", Fp8Scaling::kTensor}, {"channel", Fp8Scaling::kChannel}, {"block", Fp8Scaling::kBlock}});
  g.block = int_attr(check, call, gemm_fp8_names::kBlockSize, 128);
  check.require(g.block > 0, "attribute 'block_size' must be positive (got " + std::to_string(g.block) + ")");
  if (!check.ok()) return g;
  check.dtype(*g.a, {OPCERT_DTYPE_F8_E4M3FN, OPCERT_DTYPE_F8_E5M2});
  check.dtype(*g.b, {OPCERT_DTYPE_F8_E4M3FN, OPCERT_DTYPE_F8_E5M2});
  check.dtype(*g.a_scale, {OPCERT_DTYPE_F32});
  check.dtype(*g.b_scale, {OPCERT_DTYPE_F32});
  check.dtype(*g.c, {OPCERT_DTYPE_BF16, OPCERT_DTYPE_F16, OPCERT_DTYPE_F32});
  if (g.bias) check.same_dtype(*g.bias, *g.c);
  if (!check.ok()) return g;
  static_cast<GemmDims&>(g) = check_gemm_shapes(check, *g.a, *g.b, *g.c);
  if (!check.ok()) return g;
  if (g.bias) check.shape(*g.bias, {g.n}, "[N]");
  switch (g.scaling) {
    case Fp8Scaling::kTensor:
      // [1] by the contract; a 0-d tensor holds one value too.
      for (const Tensor* t : {&*g.a_scale, &*g.b_scale})
        check.require(t->numel() == 1 && t->ndim() <= 1,
                      std::string(t->name()) + " has shape " + shape_string(*t) + ", expected [1] for scaling \"tensor\"");
      break;
    case Fp8Scaling::kChannel:
      check.shape(*g.a_scale, {g.m}, "[M]");
      check.shape(*g.b_scale, {g.n}, "[N]");
      break;
    case Fp8Scaling::kBlock: {
      const std::string edge = std::to_string(g.block);
      check.shape(*g.a_scale, {g.m, g.blocks(g.k)}, "[M, ceil(K/" + edge + ")]");
      check.shape(*g.b_scale, {g.blocks(g.n), g.blocks(g.k)}, "[ceil(N/" + edge + "), ceil(K/" + edge + ")]");
      break;
    }
  }
  return g;
}

}  // namespace opcert::sdk
