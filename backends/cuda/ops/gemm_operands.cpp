#include "ops/gemm_operands.h"

#include <string>
#include <vector>

#include "cuda_check.h"
#include "ops/gemm_epilogue.h"
#include "ops/lt_gemm.h"

namespace opcert::cuda {
namespace {

LtProblem problem_of(const GemmOperands& g, cublasComputeType_t compute) {
  LtProblem p;
  p.m = g.m;
  p.n = g.n;
  p.k = g.k;
  p.b_kn = g.kn;
  p.a_type = p.b_type = p.c_type = cuda_data_type(g.a->dtype());
  p.compute = compute;
  p.scale_type = CUDA_R_32F;
  p.bias = g.bias.has_value();
  return p;
}

}  // namespace

GemmOperands parse_gemm(const sdk::OpCall& call, sdk::CallCheck& check) {
  GemmOperands g;
  g.a = check.input("a");
  g.b = check.input("b");
  g.bias = check.input("bias", false);
  g.c = check.output("c");
  g.kn = sdk::string_choice(check, call, "b_layout", "nk", {"nk", "kn"}) == "kn";
  if (!g.a || !g.b || !g.c) return g;
  check.dtype(*g.a, {OPCERT_DTYPE_F32, OPCERT_DTYPE_F16, OPCERT_DTYPE_BF16});
  for (const auto& t : {g.b, g.bias, g.c})
    if (t) check.require(t->dtype() == g.a->dtype(), std::string(t->name()) + " must have a's dtype");
  check.require(g.a->ndim() == 2 && g.b->ndim() == 2, "a and b must be matrices");
  if (!check.ok()) return g;
  g.m = g.a->dim(0);
  g.k = g.a->dim(1);
  g.n = g.kn ? g.b->dim(1) : g.b->dim(0);
  check.shape(*g.b, g.kn ? std::vector<int64_t>{g.k, g.n} : std::vector<int64_t>{g.n, g.k}, g.kn ? "[K, N]" : "[N, K]");
  if (g.bias) check.shape(*g.bias, {g.n}, "[N]");
  check.shape(*g.c, {g.m, g.n}, "[M, N]");
  return g;
}

sdk::Support gemm_support(CudaContext& ctx, const GemmOperands& g, cublasComputeType_t compute) {
  if (g.m * g.n == 0 || g.k == 0) return sdk::Support::yes();
  if (auto why = lt_gemm_unsupported(ctx, problem_of(g, compute))) return sdk::Support::no(*why);
  return sdk::Support::yes();
}

void run_gemm(CudaContext& ctx, const GemmOperands& g, cublasComputeType_t compute) {
  if (g.m * g.n == 0) return;
  const int elem = static_cast<int>(sdk::dtype_size(g.a->dtype()));
  if (g.k == 0) return fill_empty_sum(*g.c, g.bias, ctx.stream);
  LtOperands o;
  o.a = g.a->data<const void>();
  o.b = g.b->data<const void>();
  o.c = g.c->data<void>();
  o.bias = g.bias ? g.bias->data<const void>() : nullptr;
  lt_gemm_run(ctx, problem_of(g, compute), o, {elem, elem, elem});
}

}  // namespace opcert::cuda
