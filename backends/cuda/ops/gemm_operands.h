// The one cuBLASLt GEMM both gemm keys run on operands the SDK's parse_gemm read
// (docs/OPS.md#gemm: fp32, fp16, bf16; B as [N,K] or [K,N]; optional bias): cuda.gemm.cublaslt in
// full fp32 compute, cuda.gemm.tf32 with fp32 inputs rounded to TF32. They differ only in the
// cuBLASLt compute type.
#pragma once

#include <cublasLt.h>
#include <opcert/sdk/ops/gemm.h>

#include "cuda_context.h"

namespace opcert::cuda {

using sdk::GemmOperands;

/// The query's answer for operands that parsed cleanly: yes for empty problems (no GEMM runs),
/// else whether cuBLASLt has an algorithm with `compute`, padded or not.
sdk::Support gemm_support(CudaContext& ctx, const GemmOperands& g, cublasComputeType_t compute);

/// Queues c = a·bᵀ (+ bias) with fp32 accumulation and `compute`, the bias as the epilogue.
void run_gemm(CudaContext& ctx, const GemmOperands& g, cublasComputeType_t compute);

}  // namespace opcert::cuda
