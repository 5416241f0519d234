// gemm_int8 (docs/OPS.md): int8 x int8 with exact int32 accumulation (AVX-512 VNNI vpdpbusd on
// A + 128, corrected by 128 * column sums of B; portable int32 fallback). Output int32 exact, or
// bf16/fp16 dequantized: round_out( (a_scale[m] * b_scale[n]) * acc + bias[n] ) in fp32.
#include <opcert/sdk/checked_implementation.h>
#include <opcert/sdk/ops/gemm_int8.h>

#include <algorithm>
#include <vector>

#include "cpu_implementations.h"
#include "ops/cpu_numeric.h"
#include "ops/gemm_driver.h"
#include "ops/gemm_epilogue.h"

namespace opcert::cpu {
namespace {

using Int8Args = sdk::GemmInt8Operands;

void compute(const Int8Args& g) {
  const int32_t out_dtype = g.c->dtype();
  const bool dequantize = g.dequantize;
  const std::vector<float> bias = bias_as_f32(g.bias, out_dtype, g.n);
  const float* as = dequantize ? g.a_scale->data<const float>() : nullptr;
  const float* bs = dequantize ? g.b_scale->data<const float>() : nullptr;
  void* out = g.c->data();
  const int64_t n = g.n;

  I8Gemm problem;
  problem.a = g.a->data<const int8_t>();
  problem.b = g.b->data<const int8_t>();
  problem.m = g.m;
  problem.n = g.n;
  problem.k = g.k;
  const Isa isa = active_isa();
  const OutputStore store(f32_kernel(isa));
  problem.epilogue = [&](int64_t m0, int64_t n0, int64_t mc, int64_t nc, const int32_t* acc, int64_t ld) {
    if (!dequantize) {
      for (int64_t i = 0; i < mc; ++i)
        std::copy(acc + i * ld, acc + i * ld + nc, static_cast<int32_t*>(out) + (m0 + i) * n + n0);
      return;
    }
    store_tile(store, out_dtype, out, n, bias, m0, n0, mc, nc, [&](int64_t i, int64_t col, int64_t jt) {
      return (as[m0 + i] * bs[col]) * static_cast<float>(acc[i * ld + jt]);
    });
  };
  run_i8_gemm(problem, isa);
}

std::vector<sdk::Implementation> gemm_int8_implementations() {
  return {sdk::checked_implementation(
      {"cpu.gemm_int8.blocked", "gemm_int8", "int8 GEMM, exact int32 accumulation (AVX-512 VNNI 14x32 tile, portable fallback)"},
      sdk::parse_gemm_int8, compute)};
}

}  // namespace

OPCERT_REGISTER_IMPLEMENTATIONS(CpuImplementations, "gemm_int8", gemm_int8_implementations)

}  // namespace opcert::cpu
