// gemm (docs/OPS.md): C = A · Bᵀ (+ bias), fp32/fp16/bf16, B as [N, K] ("nk") or [K, N] ("kn").
// Inputs are decoded to fp32 while packing, accumulated in fp32, bias added, rounded once.
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

void compute(const GemmArgs& g) {
  const int32_t dtype = g.a->dtype();
  const std::vector<float> bias = bias_as_f32(g.bias, dtype, g.n);
  void* out = g.c->data();
  const int64_t n = g.n;

  F32Gemm problem;
  problem.a = {g.a->data(), dtype, g.k, 1};
  problem.b = g.b_kn ? MatrixView{g.b->data(), dtype, 1, g.n} : MatrixView{g.b->data(), dtype, g.k, 1};
  problem.m = g.m;
  problem.n = g.n;
  problem.k = g.k;
  problem.epilogue = [&](int64_t m0, int64_t n0, int64_t mc, int64_t nc, const float* acc, int64_t ld) {
    store_tile(dtype, out, n, bias, m0, n0, mc, nc, [&](int64_t i, int64_t /*col*/, int64_t jt) {
      return acc[i * ld + jt];
    });
  };
  run_f32_gemm(problem, active_isa());
}

}  // namespace

std::vector<sdk::Implementation> gemm_implementations() {
  return checked_implementation<GemmArgs>(
      "cpu.gemm.blocked", "gemm",
      "cache-blocked, packed fp32-accumulating GEMM (AVX-512 FMA 14x32 tile, portable fallback)",
      parse, compute);
}

}  // namespace opcert::cpu
