// "cuda.gemm.tf32": fp32 gemm on cuBLASLt's TF32 tensor cores (CUBLAS_COMPUTE_32F_FAST_TF32):
// fp32 in and out, fp32 accumulation, the bias fused as the epilogue, as "cuda.gemm.cublaslt"
// but with the inputs rounded to TF32 (10 explicit mantissa bits). That rounding is outside the
// fp32 contract, so this key takes only calls that allow it (allow_tf32 = 1, docs/OPS.md#gemm)
// and answers unsupported, saying why, for every other. Operands: the SDK's parse_gemm.
#include <opcert/sdk/checked_implementation.h>

#include <string>

#include "cuda_implementations.h"
#include "ops/gemm_operands.h"

namespace opcert::cuda {
namespace {

constexpr cublasComputeType_t kTf32Compute = CUBLAS_COMPUTE_32F_FAST_TF32;

// What this key takes of the calls whose operands are valid: fp32 that allows TF32, and a cuBLASLt
// algorithm for it.
sdk::Support tf32_support(CudaContext& ctx, const GemmOperands& g) {
  if (g.dtype != OPCERT_DTYPE_F32)
    return sdk::Support::no("TF32 rounds fp32 inputs; this call is " + sdk::dtype_name(g.dtype) +
                            " (cuda.gemm.cublaslt serves it)");
  if (!g.allow_tf32)
    return sdk::Support::no("TF32 rounds the inputs to 10-bit mantissas, outside the fp32 contract; the call does not "
                            "allow it (allow_tf32 = 1)");
  return gemm_support(ctx, g, kTf32Compute);
}

std::vector<sdk::Implementation> gemm_tf32_implementations(CudaContext& ctx) {
  return {sdk::checked_implementation({"cuda.gemm.tf32", "gemm",
                                       "cuBLASLt TF32 tensor cores for fp32 (only where allow_tf32 = 1), fp32 accumulation, "
                                       "bias fused as the epilogue",
                                       OPCERT_DEVICE_CUDA},
                                      sdk::parse_gemm, [&ctx](const GemmOperands& g) { run_gemm(ctx, g, kTf32Compute); },
                                      [&ctx](const GemmOperands& g) { return tf32_support(ctx, g); })};
}

}  // namespace

OPCERT_REGISTER_IMPLEMENTATIONS(CudaImplementations, "gemm_tf32", gemm_tf32_implementations)

}  // namespace opcert::cuda
