// opcert's own fp8 GEMM on Ada/Hopper mma.sync tensor cores (sm_89 and later), for what cuBLASLt
// does not take on this device: DeepSeek-V3 block scales (1×128 on the activations, 128×128 on the
// weight), applied inside the main loop as each 128-wide K block's fp32 partial sum is promoted,
// and e5m2 × e5m2. Per-tensor and per-token × per-channel scales apply in the epilogue. Every M, N
// and K; 16-byte copies where K and the operands allow, byte loads otherwise.
#pragma once

#include <cuda_runtime.h>
#include <opcert/sdk/gemm_fp8_operands.h>

#include <cstdint>
#include <optional>
#include <string>

#include "cuda_context.h"
#include "ops/gemm_epilogue.h"

namespace opcert::cuda {

struct Fp8MmaProblem {
  int64_t m = 0, n = 0, k = 0;  // m, n, k > 0
  bool a_e5m2 = false, b_e5m2 = false;
  // a_scale and b_scale: [1] and [1]; [M] and [N]; [M, ceil(K/128)] and [ceil(N/128), ceil(K/128)]
  sdk::Fp8Scaling scaling = sdk::Fp8Scaling::kTensor;
  const void* a = nullptr;  // [M, K] row-major
  const void* b = nullptr;  // [N, K] row-major (the weight)
  const float* a_scale = nullptr;
  const float* b_scale = nullptr;
  const void* bias = nullptr;  // [N] in the output dtype, or null
  void* c = nullptr;           // [M, N] row-major
  EpilogueOut out = EpilogueOut::kBf16;
};

/// Why fp8 mma.sync kernels cannot run on ctx's device, if they cannot: compute capability below
/// 8.9, or `kernel`'s image for the device built for an earlier one (no fp8 mma there).
std::optional<std::string> fp8_mma_unavailable(const CudaContext& ctx, const void* kernel);

/// Why the mma kernel cannot run on ctx's device, if it cannot (fp8_mma_unavailable).
std::optional<std::string> fp8_mma_gemm_unavailable(const CudaContext& ctx);

/// Largest M the launch grid covers (65535 row tiles of 128).
inline constexpr int64_t kFp8MmaMaxM = int64_t{65535} * 128;

/// Queues c = round_out(scales · (a · bᵀ) + bias) on ctx.stream; the caller checks the launch.
void launch_fp8_mma_gemm(const CudaContext& ctx, const Fp8MmaProblem& p);

}  // namespace opcert::cuda
