// gemm (fp32, fp16, bf16) on cuBLASLt with fp32 accumulation and the bias fused as its epilogue:
// one kernel, the output rounded once. "cuda.gemm.cublaslt" computes fp32 in full fp32 (no TF32:
// TF32 rounds the inputs to 10-bit mantissas, which the fp32 contract of docs/OPS.md allows only
// with allow_tf32 = 1; "cuda.gemm.tf32", gemm_tf32.cpp, serves those cases). A call's allow_tf32
// is ignored here: full fp32 is at least as accurate as what it permits.
#include <opcert/sdk/call_check.h>

#include "ops/checked_implementation.h"
#include "ops/cuda_ops.h"
#include "ops/gemm_operands.h"

namespace opcert::cuda {
namespace {

sdk::Support query(CudaContext& ctx, const sdk::OpCall& call) {
  sdk::CallCheck check(call, false, OPCERT_DEVICE_CUDA);
  const GemmOperands g = parse_gemm(call, check);
  if (!check.ok()) return check.support();
  return gemm_support(ctx, g, CUBLAS_COMPUTE_32F);
}

void run(CudaContext& ctx, const sdk::OpCall& call) {
  sdk::CallCheck check(call, true, OPCERT_DEVICE_CUDA);
  const GemmOperands g = parse_gemm(call, check);
  check.throw_if_failed();
  run_gemm(ctx, g, CUBLAS_COMPUTE_32F);
}

}  // namespace

std::vector<sdk::Implementation> gemm_implementations(CudaContext& ctx) {
  return {context_implementation(ctx, "cuda.gemm.cublaslt", "gemm",
                                 "cuBLASLt, fp32 accumulation, bias fused as the epilogue, algorithm timed once per shape",
                                 query, run),
          gemm_tf32_implementation(ctx)};
}

}  // namespace opcert::cuda
