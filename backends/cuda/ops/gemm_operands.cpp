#include "ops/gemm_operands.h"

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
  p.b_kn = g.b_layout == sdk::BLayout::kKN;
  p.a_type = p.b_type = p.c_type = cuda_data_type(g.a->dtype());
  p.compute = compute;
  p.scale_type = CUDA_R_32F;
  p.bias = g.bias.has_value();
  return p;
}

}  // namespace

sdk::Support gemm_support(CudaContext& ctx, const GemmOperands& g, cublasComputeType_t compute) {
  return lt_gemm_support(ctx, problem_of(g, compute));
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
