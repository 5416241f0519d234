// gemm_int8 on cuBLASLt's int8 tensor-core GEMM (int32 accumulation, exact), with a workspace
// (torch's _int_mm runs without one, one reason it is slower). A dequantized output (bf16/fp16,
// per-token × per-channel scales, bias) takes one more pass: the int32 result through
// the scale_outer epilogue kernel, since cuBLASLt's int8 path has no outer-vector scaling.
// Operands: the SDK's parse_gemm_int8; the one limit beyond the contract is cuBLASLt having an
// algorithm.
#include <opcert/sdk/checked_implementation.h>
#include <opcert/sdk/ops/gemm_int8.h>

#include "cuda_check.h"
#include "cuda_implementations.h"
#include "ops/gemm_epilogue.h"
#include "ops/lt_gemm.h"

namespace opcert::cuda {
namespace {

using Int8Args = sdk::GemmInt8Operands;

LtProblem problem_of(const Int8Args& g) {
  LtProblem p;
  p.m = g.m;
  p.n = g.n;
  p.k = g.k;
  p.a_type = p.b_type = CUDA_R_8I;
  p.c_type = CUDA_R_32I;
  p.compute = CUBLAS_COMPUTE_32I;
  p.scale_type = CUDA_R_32I;
  return p;
}

void run(CudaContext& ctx, const Int8Args& g) {
  if (g.m * g.n == 0) return;
  const bool bf16 = g.c->dtype() == OPCERT_DTYPE_BF16;
  const void* bias = g.bias ? g.bias->data<const void>() : nullptr;
  if (g.k == 0) {
    fill_empty_sum(*g.c, g.bias, ctx.stream);  // an int32 output has no bias (the parser refuses one)
    return;
  }
  LtOperands o;
  o.a = g.a->data<const void>();
  o.b = g.b->data<const void>();
  int32_t* acc = g.dequantize ? static_cast<int32_t*>(ctx.allocator.allocate(static_cast<std::size_t>(g.m * g.n) * 4))
                              : g.c->data<int32_t>();
  o.c = acc;
  try {
    lt_gemm_run(ctx, problem_of(g), o, {1, 1, 4});
    if (g.dequantize) {
      launch_scale_outer(acc, true, g.a_scale->data<const float>(), g.b_scale->data<const float>(), bias,
                         g.c->data<void>(), g.m, g.n, bf16 ? EpilogueOut::kBf16 : EpilogueOut::kFp16, ctx.stream);
      OPCERT_CUDA_CHECK_LAUNCH("scale_outer");
    }
  } catch (...) {
    if (g.dequantize) ctx.allocator.free(acc);
    throw;
  }
  if (g.dequantize) ctx.allocator.free(acc);  // stream-ordered reuse is safe
}

std::vector<sdk::Implementation> gemm_int8_implementations(CudaContext& ctx) {
  return {sdk::checked_implementation(
      {"cuda.gemm_int8.cublaslt", "gemm_int8",
       "cuBLASLt int8 tensor cores, int32 accumulation, dequantizing epilogue kernel for bf16/fp16", OPCERT_DEVICE_CUDA},
      sdk::parse_gemm_int8, [&ctx](const Int8Args& g) { run(ctx, g); },
      [&ctx](const Int8Args& g) { return lt_gemm_support(ctx, problem_of(g)); })};
}

}  // namespace

OPCERT_REGISTER_IMPLEMENTATIONS(CudaImplementations, "gemm_int8", gemm_int8_implementations)

}  // namespace opcert::cuda
