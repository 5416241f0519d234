// gemm_int8 (docs/OPS.md): int8 x int8 with exact int32 accumulation (AVX-512 VNNI vpdpbusd on
// A + 128, corrected by 128 * column sums of B; portable int32 fallback). Output int32 exact, or
// bf16/fp16 dequantized: round_out( (a_scale[m] * b_scale[n]) * acc + bias[n] ) in fp32.
#include <algorithm>
#include <vector>

#include "ops/cpu_numeric.h"
#include "ops/cpu_ops.h"
#include "ops/gemm_call_check.h"
#include "ops/gemm_driver.h"
#include "ops/gemm_epilogue.h"
#include "ops/gemm_registration.h"

namespace opcert::cpu {
namespace {

struct Int8Args {
  std::optional<sdk::Tensor> a, b, a_scale, b_scale, bias, c;
  bool dequantize = false;
  int64_t m = 0, n = 0, k = 0;
};

Int8Args parse(const sdk::OpCall& /*call: no attributes*/, CallCheck& check) {
  Int8Args g;
  g.a = check.input("a");
  g.b = check.input("b");
  g.c = check.output("c");
  if (!check.ok()) return g;
  check.dtype(*g.c, {OPCERT_DTYPE_I32, OPCERT_DTYPE_BF16, OPCERT_DTYPE_F16});
  g.dequantize = g.c->dtype() != OPCERT_DTYPE_I32;
  g.a_scale = check.input("a_scale", g.dequantize);
  g.b_scale = check.input("b_scale", g.dequantize);
  g.bias = check.input("bias", false);
  check.dtype(*g.a, {OPCERT_DTYPE_I8});
  check.dtype(*g.b, {OPCERT_DTYPE_I8});
  check.require(g.a->ndim() == 2, "a must be 2-D [M, K]");
  check.require(g.b->ndim() == 2, "b must be 2-D [N, K]");
  if (!check.ok()) return g;
  g.m = g.a->dim(0);
  g.k = g.a->dim(1);
  g.n = g.b->dim(0);
  check.shape(*g.b, {g.n, g.k}, "[N, K]");
  check.shape(*g.c, {g.m, g.n}, "[M, N]");
  if (g.dequantize) {
    check.dtype(*g.a_scale, {OPCERT_DTYPE_F32});
    check.dtype(*g.b_scale, {OPCERT_DTYPE_F32});
    check.shape(*g.a_scale, {g.m}, "[M]");
    check.shape(*g.b_scale, {g.n}, "[N]");
    if (g.bias) {
      check.require(g.bias->dtype() == g.c->dtype(), "bias is " + dtype_name(g.bias->dtype()) +
                                                         ", expected the output dtype " + dtype_name(g.c->dtype()));
      check.shape(*g.bias, {g.n}, "[N]");
    }
  } else {
    // Scales do not enter the int32 formula and are ignored; a bias would change it.
    check.require(!g.bias, "bias is only defined for dequantized (bf16/fp16) outputs, not int32");
  }
  return g;
}

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
  problem.epilogue = [&](int64_t m0, int64_t n0, int64_t mc, int64_t nc, const int32_t* acc, int64_t ld) {
    if (!dequantize) {
      for (int64_t i = 0; i < mc; ++i)
        std::copy(acc + i * ld, acc + i * ld + nc, static_cast<int32_t*>(out) + (m0 + i) * n + n0);
      return;
    }
    store_tile(out_dtype, out, n, bias, m0, n0, mc, nc, [&](int64_t i, int64_t col, int64_t jt) {
      return (as[m0 + i] * bs[col]) * static_cast<float>(acc[i * ld + jt]);
    });
  };
  run_i8_gemm(problem, active_isa());
}

}  // namespace

std::vector<sdk::Implementation> gemm_int8_implementations() {
  return checked_implementation<Int8Args>(
      "cpu.gemm_int8.blocked", "gemm_int8",
      "int8 GEMM, exact int32 accumulation (AVX-512 VNNI 14x32 tile, portable fallback)",
      parse, compute);
}

}  // namespace opcert::cpu
