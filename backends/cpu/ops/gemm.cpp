// gemm (docs/OPS.md; operands read by the SDK's parse_gemm): C = A · Bᵀ (+ bias), fp32/fp16/bf16,
// B as [N, K] ("nk") or [K, N] ("kn"). Products are exact and accumulated in fp32, bias added,
// rounded once. fp32 and fp16 are decoded to fp32 while packing (FMA kernel); bf16 runs in K pairs
// on vdpbf16ps where the CPU has AVX512-BF16 (gemm_pack_pairs.h says when it cannot). allow_tf32
// changes nothing: full fp32 is at least as accurate.
#include <opcert/sdk/checked_implementation.h>
#include <opcert/sdk/ops/gemm.h>

#include <algorithm>
#include <vector>

#include "cpu_implementations.h"
#include "ops/cpu_numeric.h"
#include "ops/gemm_driver.h"
#include "ops/gemm_epilogue.h"

namespace opcert::cpu {
namespace {

void compute(const sdk::GemmOperands& g) {
  const int32_t dtype = g.dtype;
  const std::vector<float> bias = bias_as_f32(g.bias, dtype, g.n);
  void* out = g.c->data();
  const int64_t n = g.n;

  F32Gemm problem;
  problem.a = {g.a->data(), dtype, g.k, 1};
  problem.b = g.b_layout == sdk::BLayout::kKN ? MatrixView{g.b->data(), dtype, 1, g.n} : MatrixView{g.b->data(), dtype, g.k, 1};
  problem.m = g.m;
  problem.n = g.n;
  problem.k = g.k;
  const Isa isa = active_isa();
  const OutputStore store(f32_kernel(isa));
  problem.epilogue = [&](int64_t m0, int64_t n0, int64_t mc, int64_t nc, const float* acc, int64_t ld) {
    store_tile(store, dtype, out, n, bias, m0, n0, mc, nc, [&](int64_t i, int64_t /*col*/, int64_t jt) {
      return acc[i * ld + jt];
    });
  };
  run_f32_gemm(problem, isa);
}

std::vector<sdk::Implementation> gemm_implementations() {
  return {sdk::checked_implementation(
      {"cpu.gemm.blocked", "gemm", "cache-blocked, packed fp32-accumulating GEMM (AVX-512 FMA 14x32 tile; bf16 on AVX512-BF16 vdpbf16ps; portable fallback)"},
      sdk::parse_gemm, compute)};
}

}  // namespace

OPCERT_REGISTER_IMPLEMENTATIONS(CpuImplementations, "gemm", gemm_implementations)

}  // namespace opcert::cpu
