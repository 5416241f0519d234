// "cuda.gemm.tf32": fp32 gemm on cuBLASLt's TF32 tensor cores (CUBLAS_COMPUTE_32F_FAST_TF32):
// fp32 in and out, fp32 accumulation, the bias fused as the epilogue, as "cuda.gemm.cublaslt"
// but with the inputs rounded to TF32 (10 explicit mantissa bits). That rounding is outside the
// fp32 contract, so this key takes only calls that allow it (allow_tf32 = 1, docs/OPS.md#gemm)
// and answers unsupported, saying why, for every other.
#include <opcert/sdk/call_check.h>
#include <opcert/sdk/error.h>

#include <optional>
#include <string>

#include "ops/checked_implementation.h"
#include "ops/cuda_ops.h"
#include "ops/gemm_operands.h"

namespace opcert::cuda {
namespace {

constexpr cublasComputeType_t kTf32Compute = CUBLAS_COMPUTE_32F_FAST_TF32;

// Why this key does not take a call whose operands are valid; nullopt when it does.
std::optional<std::string> tf32_refusal(const sdk::OpCall& call, const GemmOperands& g) {
  if (g.a->dtype() != OPCERT_DTYPE_F32)
    return "TF32 rounds fp32 inputs; this call is " + sdk::dtype_name(g.a->dtype()) + " (cuda.gemm.cublaslt serves it)";
  const opcert_attr* allow = call.find_attr("allow_tf32");
  if (allow != nullptr && (allow->kind != OPCERT_ATTR_INT || (allow->i != 0 && allow->i != 1)))
    return std::string("attribute allow_tf32 must be the int 0 or 1");
  if (allow == nullptr || allow->i == 0)
    return std::string("TF32 rounds the inputs to 10-bit mantissas, outside the fp32 contract; the call does not "
                       "allow it (allow_tf32 = 1)");
  return std::nullopt;
}

sdk::Support query(CudaContext& ctx, const sdk::OpCall& call) {
  sdk::CallCheck check(call, false, OPCERT_DEVICE_CUDA);
  const GemmOperands g = parse_gemm(call, check);
  if (!check.ok()) return check.support();
  if (auto why = tf32_refusal(call, g)) return sdk::Support::no(*why);
  return gemm_support(ctx, g, kTf32Compute);
}

void run(CudaContext& ctx, const sdk::OpCall& call) {
  sdk::CallCheck check(call, true, OPCERT_DEVICE_CUDA);
  const GemmOperands g = parse_gemm(call, check);
  check.throw_if_failed();
  if (auto why = tf32_refusal(call, g)) throw sdk::Error(OPCERT_ERROR_UNSUPPORTED, *why);
  run_gemm(ctx, g, kTf32Compute);
}

}  // namespace

sdk::Implementation gemm_tf32_implementation(CudaContext& ctx) {
  return context_implementation(ctx, "cuda.gemm.tf32", "gemm",
                                "cuBLASLt TF32 tensor cores for fp32 (only where allow_tf32 = 1), fp32 accumulation, "
                                "bias fused as the epilogue",
                                query, run);
}

}  // namespace opcert::cuda
