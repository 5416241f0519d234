// gemm's operands as the CUDA backend reads them (docs/OPS.md#gemm: fp32, fp16, bf16; B as [N,K]
// or [K,N]; optional bias) and the one cuBLASLt GEMM both gemm keys run: cuda.gemm.cublaslt in
// full fp32 compute, cuda.gemm.tf32 with fp32 inputs rounded to TF32. They differ only in the
// cuBLASLt compute type.
#pragma once

#include <cublasLt.h>
#include <opcert/sdk/call_check.h>

#include <cstdint>
#include <optional>

#include "cuda_context.h"

namespace opcert::cuda {

struct GemmOperands {
  std::optional<sdk::Tensor> a, b, bias, c;
  int64_t m = 0, n = 0, k = 0;
  bool kn = false;  // b stored [K, N]
};

/// Reads and validates the call's operands; problems go to `check`.
GemmOperands parse_gemm(const sdk::OpCall& call, sdk::CallCheck& check);

/// The query's answer for operands that parsed cleanly: yes for empty problems (no GEMM runs),
/// else whether cuBLASLt has an algorithm with `compute`, padded or not.
sdk::Support gemm_support(CudaContext& ctx, const GemmOperands& g, cublasComputeType_t compute);

/// Queues c = a·bᵀ (+ bias) with fp32 accumulation and `compute`, the bias as the epilogue.
void run_gemm(CudaContext& ctx, const GemmOperands& g, cublasComputeType_t compute);

}  // namespace opcert::cuda
