// The small kernels around cuBLASLt's GEMMs: what cuBLASLt cannot fuse (int8 dequantization with
// per-token × per-channel scales), K = 0 (the output is the bias), and the transposition the fp8
// block scales need. All queue on `stream`; the callers check the launch.
#pragma once

#include <cuda_runtime.h>
#include <opcert/sdk/op_call.h>

#include <cstdint>
#include <optional>

namespace opcert::cuda {

enum class EpilogueOut { kBf16, kFp16, kFp32 };

/// c[m,n] = round_out(a_scale[m] · b_scale[n] · acc[m,n] + bias[n]) in fp32, with acc int32
/// (`acc_is_int32`) or fp32; bias (may be null) in the output dtype.
void launch_scale_outer(const void* acc, bool acc_is_int32, const float* a_scale, const float* b_scale,
                        const void* bias, void* c, int64_t m, int64_t n, EpilogueOut out, cudaStream_t stream);

/// c[m,n] = bias[n], or 0 without a bias, for an output of `elem_bytes` per element (1, 2 or 4).
void launch_fill_rows(void* c, const void* bias, int64_t m, int64_t n, int elem_bytes, cudaStream_t stream);

/// The output c [M, N] of a GEMM whose K is 0 (an empty sum): bias[n] in every row, or zeros
/// without a bias (which has c's dtype). Queues on `stream` and checks the launch.
void fill_empty_sum(const sdk::Tensor& c, const std::optional<sdk::Tensor>& bias, cudaStream_t stream);

/// dst[c][r] = src[r][c] for an fp32 rows × cols matrix.
void launch_transpose_f32(const float* src, float* dst, int64_t rows, int64_t cols, cudaStream_t stream);

}  // namespace opcert::cuda
