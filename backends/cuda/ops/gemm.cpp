// gemm (fp32, fp16, bf16) on cuBLASLt with fp32 accumulation and the bias fused as its epilogue:
// one kernel, the output rounded once. "cuda.gemm.cublaslt" computes fp32 in full fp32 (no TF32:
// TF32 rounds the inputs to 10-bit mantissas, which the fp32 contract of docs/OPS.md allows only
// with allow_tf32 = 1; "cuda.gemm.tf32", gemm_tf32.cpp, serves those cases). A call's allow_tf32
// is ignored here: full fp32 is at least as accurate as what it permits. Operands: the SDK's
// parse_gemm; the one limit beyond the contract is cuBLASLt having an algorithm.
#include <opcert/sdk/checked_implementation.h>

#include "cuda_implementations.h"
#include "ops/gemm_operands.h"

namespace opcert::cuda {
namespace {

std::vector<sdk::Implementation> gemm_implementations(CudaContext& ctx) {
  return {sdk::checked_implementation(
              {"cuda.gemm.cublaslt", "gemm",
               "cuBLASLt, fp32 accumulation, bias fused as the epilogue, algorithm timed once per shape", OPCERT_DEVICE_CUDA},
              sdk::parse_gemm, [&ctx](const GemmOperands& g) { run_gemm(ctx, g, CUBLAS_COMPUTE_32F); },
              [&ctx](const GemmOperands& g) { return gemm_support(ctx, g, CUBLAS_COMPUTE_32F); })};
}

}  // namespace

OPCERT_REGISTER_IMPLEMENTATIONS(CudaImplementations, "gemm", gemm_implementations)

}  // namespace opcert::cuda
