// gemm_fp8 (docs/OPS.md): scaled fp8 GEMM, a/b each e4m3fn or e5m2, scales per tensor, per
// token x per channel, or DeepSeek blocks (1 x 128 for A, 128 x 128 for B); out bf16/fp16/fp32.
// fp8 is decoded exactly to fp32 while packing (or to bf16 K pairs for the AVX512-BF16 kernel:
// bf16 holds every fp8 value); products are exact, accumulation is fp32. Block scaling
// accumulates each K block on its own, then scales and adds it (TileUpdate::kScale*).
#include <opcert/sdk/checked_implementation.h>
#include <opcert/sdk/ops/gemm_fp8.h>

#include <algorithm>
#include <vector>

#include "cpu_implementations.h"
#include "ops/cpu_numeric.h"
#include "ops/gemm_driver.h"
#include "ops/gemm_epilogue.h"

namespace opcert::cpu {
namespace {

using sdk::Fp8Scaling;
using Fp8Args = sdk::GemmFp8Operands;

void compute(const Fp8Args& g) {
  const int32_t out_dtype = g.c->dtype();
  const std::vector<float> bias = bias_as_f32(g.bias, out_dtype, g.n);
  const float* as = g.a_scale->data<const float>();
  const float* bs = g.b_scale->data<const float>();
  void* out = g.c->data();
  const int64_t n = g.n;
  const Fp8Scaling scaling = g.scaling;

  BlockScales blocks{as, g.blocks(g.k), bs, g.blocks(g.k), g.block};
  F32Gemm problem;
  problem.a = {g.a->data(), g.a->dtype(), g.k, 1};
  problem.b = {g.b->data(), g.b->dtype(), g.k, 1};
  problem.m = g.m;
  problem.n = g.n;
  problem.k = g.k;
  problem.block_scales = scaling == Fp8Scaling::kBlock ? &blocks : nullptr;
  const Isa isa = active_isa();
  const OutputStore store(f32_kernel(isa));
  problem.epilogue = [&](int64_t m0, int64_t n0, int64_t mc, int64_t nc, const float* acc, int64_t ld) {
    store_tile(store, out_dtype, out, n, bias, m0, n0, mc, nc, [&](int64_t i, int64_t col, int64_t jt) {
      float v = acc[i * ld + jt];
      if (scaling == Fp8Scaling::kTensor) v = (as[0] * bs[0]) * v;
      if (scaling == Fp8Scaling::kChannel) v = (as[m0 + i] * bs[col]) * v;
      return v;
    });
  };
  run_f32_gemm(problem, isa);
}

std::vector<sdk::Implementation> gemm_fp8_implementations() {
  return {sdk::checked_implementation(
      {"cpu.gemm_fp8.blocked", "gemm_fp8", "fp8 decoded exactly while packing (fp32, or bf16 pairs on AVX512-BF16), fp32 accumulation, tensor/channel/block scales"},
      sdk::parse_gemm_fp8, compute)};
}

}  // namespace

OPCERT_REGISTER_IMPLEMENTATIONS(CpuImplementations, "gemm_fp8", gemm_fp8_implementations)

}  // namespace opcert::cpu
