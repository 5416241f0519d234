// gemm (docs/OPS.md): C = A · Bᵀ (+ bias), fp32/fp16/bf16, B as [N, K] ("nk") or [K, N] ("kn").
// Inputs are decoded to fp32 while packing, accumulated in fp32, bias added, rounded once.
#include <algorithm>
#include <vector>

#include "ops/cpu_numeric.h"
#include "ops/cpu_ops.h"
#include "ops/gemm_call_check.h"
#include "ops/gemm_driver.h"

namespace opcert::cpu {
namespace {

struct GemmArgs {
  std::optional<sdk::Tensor> a, b, bias, c;
  bool b_kn = false;
  int64_t m = 0, n = 0, k = 0;
};

GemmArgs parse(const sdk::OpCall& call, CallCheck& check) {
  GemmArgs g;
  g.a = check.input("a");
  g.b = check.input("b");
  g.bias = check.input("bias", false);
  g.c = check.output("c");
  g.b_kn = string_choice(check, call, "b_layout", "nk", {"nk", "kn"}) == "kn";
  if (!check.ok()) return g;
  check.dtype(*g.a, {OPCERT_DTYPE_F32, OPCERT_DTYPE_F16, OPCERT_DTYPE_BF16});
  const int32_t t = g.a->dtype();
  for (const auto* other : {&g.b, &g.c, &g.bias})
    if (*other) check.require((*other)->dtype() == t, std::string((*other)->name()) + " is " + dtype_name((*other)->dtype()) +
                                                          ", a is " + dtype_name(t) + " (all operands share one dtype)");
  check.require(g.a->ndim() == 2, "a must be 2-D [M, K]");
  check.require(g.b->ndim() == 2, std::string("b must be 2-D ") + (g.b_kn ? "[K, N]" : "[N, K]"));
  if (!check.ok()) return g;
  g.m = g.a->dim(0);
  g.k = g.a->dim(1);
  g.n = g.b_kn ? g.b->dim(1) : g.b->dim(0);
  if (g.b_kn)
    check.shape(*g.b, {g.k, g.n}, "[K, N]");
  else
    check.shape(*g.b, {g.n, g.k}, "[N, K]");
  check.shape(*g.c, {g.m, g.n}, "[M, N]");
  if (g.bias) check.shape(*g.bias, {g.n}, "[N]");
  return g;
}

void run(const sdk::OpCall& call) {
  CallCheck check(call, true);
  const GemmArgs g = parse(call, check);
  check.throw_if_failed();
  const int32_t dtype = g.a->dtype();
  std::vector<float> bias(static_cast<std::size_t>(g.bias ? g.n : 0));
  if (g.bias) load_f32_run(dtype, g.bias->data(), 0, bias.data(), g.n);
  void* out = g.c->data();
  const int64_t n = g.n;

  F32Gemm problem;
  problem.a = {g.a->data(), dtype, g.k, 1};
  problem.b = g.b_kn ? MatrixView{g.b->data(), dtype, 1, g.n} : MatrixView{g.b->data(), dtype, g.k, 1};
  problem.m = g.m;
  problem.n = g.n;
  problem.k = g.k;
  problem.epilogue = [&](int64_t m0, int64_t n0, int64_t mc, int64_t nc, const float* acc, int64_t ld) {
    float row[1024];
    for (int64_t i = 0; i < mc; ++i) {
      for (int64_t j0 = 0; j0 < nc; j0 += 1024) {
        const int64_t len = std::min<int64_t>(1024, nc - j0);
        const float* src = acc + i * ld + j0;
        for (int64_t j = 0; j < len; ++j) row[j] = bias.empty() ? src[j] : src[j] + bias[n0 + j0 + j];
        store_f32_run(dtype, out, (m0 + i) * n + n0 + j0, row, len);
      }
    }
  };
  run_f32_gemm(problem, active_isa());
}

}  // namespace

std::vector<sdk::Implementation> gemm_implementations() {
  sdk::Implementation impl;
  impl.key = "cpu.gemm.blocked";
  impl.op = "gemm";
  impl.description = "cache-blocked, packed fp32-accumulating GEMM (AVX-512 FMA 14x32 tile, portable fallback)";
  impl.query = [](const sdk::OpCall& call) {
    CallCheck check(call, false);
    parse(call, check);
    return check.support();
  };
  impl.run = run;
  return {impl};
}

}  // namespace opcert::cpu
