// opcert's fp8 GEMM for few rows (decode: one token per sequence, or a handful): the weight is
// streamed from memory once at close to full bandwidth, which is what bounds such a GEMM, where
// cuBLASLt's fp8 kernels at M = 1 read it at a fraction of that (docs/PERFORMANCE.md, issue 23).
// All three scalings (per-tensor, per-token × per-channel, 1×128 / 128×128 blocks), e4m3 and e5m2,
// bias, bf16/fp16/fp32 output. Each 128-wide K block's partial sum is promoted into fp32 with its
// scales, as in the mma kernel (gemm_fp8_mma.h).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <optional>
#include <string>

#include "cuda_context.h"
#include "ops/gemm_fp8_mma.h"

namespace opcert::cuda {

/// Most rows the skinny kernel takes (one 16-row MMA tile).
inline constexpr int64_t kFp8SkinnyMaxM = 16;

/// Why the skinny kernel cannot take `p` on ctx's device, if it cannot: no fp8 mma.sync there
/// (fp8_mma_unavailable), less shared memory a block than its tile needs (108 KiB: an 8.9 device
/// allows 99), M above kFp8SkinnyMaxM, K not a multiple of 16, or a or b not 16-byte aligned.
std::optional<std::string> fp8_skinny_unsupported(const CudaContext& ctx, const Fp8MmaProblem& p);

/// Queues c = round_out(scales · (a · bᵀ) + bias) on ctx.stream; p must be supported (above).
/// The caller checks the launch.
void launch_fp8_skinny_gemm(const CudaContext& ctx, const Fp8MmaProblem& p);

}  // namespace opcert::cuda
