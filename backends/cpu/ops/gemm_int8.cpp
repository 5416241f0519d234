// gemm_int8 (docs/OPS.md): int8 x int8 with exact int32 accumulation (AVX-512 VNNI vpdpbusd on
// A + 128, corrected by 128 * column sums of B; portable int32 fallback). Output int32 exact, or
// bf16/fp16 dequantized: round_out( (a_scale[m] * b_scale[n]) * acc + bias[n] ) in fp32.
#include <algorithm>
#include <vector>

#include "ops/cpu_numeric.h"
#include "ops/cpu_ops.h"
#include "ops/gemm_call_check.h"
#include "ops/gemm_driver.h"

namespace opcert::cpu {
namespace {

struct Int8Args {
  std::optional<sdk::Tensor> a, b, a_scale, b_scale, bias, c;
  bool dequantize = false;
  int64_t m = 0, n = 0, k = 0;
};

Int8Args parse(CallCheck& check) {
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

void run(const sdk::OpCall& call) {
  CallCheck check(call, true);
  const Int8Args g = parse(check);
  check.throw_if_failed();
  const int32_t out_dtype = g.c->dtype();
  const bool dequantize = g.dequantize;
  std::vector<float> bias(static_cast<std::size_t>(g.bias ? g.n : 0));
  if (g.bias) load_f32_run(out_dtype, g.bias->data(), 0, bias.data(), g.n);
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
    float row[1024];
    for (int64_t i = 0; i < mc; ++i) {
      for (int64_t j0 = 0; j0 < nc; j0 += 1024) {
        const int64_t len = std::min<int64_t>(1024, nc - j0);
        for (int64_t j = 0; j < len; ++j) {
          const int64_t col = n0 + j0 + j;
          const float v = (as[m0 + i] * bs[col]) * static_cast<float>(acc[i * ld + j0 + j]);
          row[j] = bias.empty() ? v : v + bias[col];
        }
        store_f32_run(out_dtype, out, (m0 + i) * n + n0 + j0, row, len);
      }
    }
  };
  run_i8_gemm(problem, active_isa());
}

}  // namespace

std::vector<sdk::Implementation> gemm_int8_implementations() {
  sdk::Implementation impl;
  impl.key = "cpu.gemm_int8.blocked";
  impl.op = "gemm_int8";
  impl.description = "int8 GEMM, exact int32 accumulation (AVX-512 VNNI 14x32 tile, portable fallback)";
  impl.query = [](const sdk::OpCall& call) {
    CallCheck check(call, false);
    parse(check);
    return check.support();
  };
  impl.run = run;
  return {impl};
}

}  // namespace opcert::cpu
