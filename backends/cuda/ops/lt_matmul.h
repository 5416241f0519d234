// One GEMM through cuBLASLt in the row-major convention of docs/OPS.md: C[M,N] = A[M,K] · op(B)
// (+ bias[N]), B stored [N,K] ("nk", the weight) or [K,N] ("kn"). cuBLASLt is column-major, so the
// problem is handed over transposed: D(N×M) = op(B) · Aᵀ, "TN" for the nk layout (the only one fp8
// and int8 tensor cores take). The algorithm comes from cuBLASLt's heuristic, then the top
// candidates are each timed once on the real buffers and the fastest is cached per problem.
#pragma once

#include <cublasLt.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "cuda_context.h"

namespace opcert::cuda {

enum class ScaleMode { kNone, kTensor, kOuterVector, kBlock };

struct LtProblem {
  int64_t m = 0, n = 0, k = 0;
  bool b_kn = false;                    // B stored [K, N]
  cudaDataType_t a_type = CUDA_R_32F;   // our A (cuBLASLt's B)
  cudaDataType_t b_type = CUDA_R_32F;   // our B (cuBLASLt's A)
  cudaDataType_t c_type = CUDA_R_32F;
  cublasComputeType_t compute = CUBLAS_COMPUTE_32F;
  cudaDataType_t scale_type = CUDA_R_32F;
  bool bias = false;
  ScaleMode scale_mode = ScaleMode::kNone;  // fp8 only: how a_scale and b_scale apply
  bool fast_accumulation = false;           // fp8: Hopper's fast accumulation (not used: see gemm_fp8)

  std::string key() const;
};

struct LtOperands {
  const void* a = nullptr;
  const void* b = nullptr;
  void* c = nullptr;
  const void* bias = nullptr;
  const float* a_scale = nullptr;  // device; layout as cuBLASLt wants it for scale_mode
  const float* b_scale = nullptr;
};

/// The cuBLASLt handle's plans: descriptors and the chosen algorithm per problem.
class LtMatmul {
 public:
  explicit LtMatmul(CudaContext& ctx) : ctx_(&ctx) {}
  ~LtMatmul();
  LtMatmul(const LtMatmul&) = delete;
  LtMatmul& operator=(const LtMatmul&) = delete;

  /// Whether cuBLASLt has an algorithm for the problem as given (no data needed); the reason when not.
  std::optional<std::string> unsupported(const LtProblem& p);

  /// Queues the GEMM on ctx.stream (choosing and caching the algorithm on first use).
  void run(const LtProblem& p, const LtOperands& o);

 private:
  struct Plan;
  Plan& plan_for(const LtProblem& p);
  void choose_algorithm(Plan& plan, const LtOperands& o);

  CudaContext* ctx_;
  std::map<std::string, Plan*> plans_;
};

/// The cudaDataType of an opcert dtype; throws sdk::Error for one cuBLASLt does not take.
cudaDataType_t cuda_data_type(int32_t opcert_dtype);

}  // namespace opcert::cuda
