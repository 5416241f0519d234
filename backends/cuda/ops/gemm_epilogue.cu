#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "cuda_check.h"
#include "ops/gemm_epilogue.h"
#include "ops/vector_io.cuh"

namespace opcert::cuda {
namespace {

constexpr int kThreads = 256;

unsigned blocks_for(int64_t elements) {
  const int64_t b = (elements + kThreads - 1) / kThreads;
  return static_cast<unsigned>(b < 65535 * 64 ? b : 65535 * 64);
}

template <class Acc, class Out>
__global__ void scale_outer(const Acc* __restrict__ acc, const float* __restrict__ a_scale,
                            const float* __restrict__ b_scale, const Out* __restrict__ bias, Out* __restrict__ c,
                            int64_t m, int64_t n) {
  const int64_t total = m * n;
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < total; i += int64_t{gridDim.x} * blockDim.x) {
    const int64_t row = i / n, col = i - row * n;
    // The contract's order: (a_scale · b_scale) · acc, then + bias, each in fp32.
    float v = a_scale[row] * b_scale[col] * static_cast<float>(acc[i]);
    if (bias != nullptr) v += vio::to_f32(bias[col]);
    c[i] = vio::from_f32<Out>(v);
  }
}

template <class Acc, class Out>
void launch_scale_outer_typed(const void* acc, const float* a_scale, const float* b_scale, const void* bias, void* c,
                              int64_t m, int64_t n, cudaStream_t stream) {
  scale_outer<<<blocks_for(m * n), kThreads, 0, stream>>>(static_cast<const Acc*>(acc), a_scale, b_scale,
                                                           static_cast<const Out*>(bias), static_cast<Out*>(c), m, n);
}

template <class T>
__global__ void fill_rows(T* __restrict__ c, const T* __restrict__ bias, int64_t m, int64_t n) {
  const int64_t total = m * n;
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < total; i += int64_t{gridDim.x} * blockDim.x)
    c[i] = bias != nullptr ? bias[i % n] : T{};
}

__global__ void transpose_f32(const float* __restrict__ src, float* __restrict__ dst, int64_t rows, int64_t cols) {
  const int64_t total = rows * cols;
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < total; i += int64_t{gridDim.x} * blockDim.x) {
    const int64_t r = i / cols, col = i - r * cols;
    dst[col * rows + r] = src[i];
  }
}

}  // namespace

void launch_scale_outer(const void* acc, bool acc_is_int32, const float* a_scale, const float* b_scale,
                        const void* bias, void* c, int64_t m, int64_t n, EpilogueOut out, cudaStream_t stream) {
  if (m * n == 0) return;
  if (acc_is_int32) {
    if (out == EpilogueOut::kBf16) launch_scale_outer_typed<int32_t, __nv_bfloat16>(acc, a_scale, b_scale, bias, c, m, n, stream);
    else if (out == EpilogueOut::kFp16) launch_scale_outer_typed<int32_t, __half>(acc, a_scale, b_scale, bias, c, m, n, stream);
    else launch_scale_outer_typed<int32_t, float>(acc, a_scale, b_scale, bias, c, m, n, stream);
  } else {
    if (out == EpilogueOut::kBf16) launch_scale_outer_typed<float, __nv_bfloat16>(acc, a_scale, b_scale, bias, c, m, n, stream);
    else if (out == EpilogueOut::kFp16) launch_scale_outer_typed<float, __half>(acc, a_scale, b_scale, bias, c, m, n, stream);
    else launch_scale_outer_typed<float, float>(acc, a_scale, b_scale, bias, c, m, n, stream);
  }
}

void launch_fill_rows(void* c, const void* bias, int64_t m, int64_t n, int elem_bytes, cudaStream_t stream) {
  if (m * n == 0) return;
  const unsigned blocks = blocks_for(m * n);
  if (elem_bytes == 4)
    fill_rows<<<blocks, kThreads, 0, stream>>>(static_cast<uint32_t*>(c), static_cast<const uint32_t*>(bias), m, n);
  else if (elem_bytes == 2)
    fill_rows<<<blocks, kThreads, 0, stream>>>(static_cast<uint16_t*>(c), static_cast<const uint16_t*>(bias), m, n);
  else
    fill_rows<<<blocks, kThreads, 0, stream>>>(static_cast<uint8_t*>(c), static_cast<const uint8_t*>(bias), m, n);
}

void fill_empty_sum(const sdk::Tensor& c, const std::optional<sdk::Tensor>& bias, cudaStream_t stream) {
  launch_fill_rows(c.data<void>(), bias ? bias->data<const void>() : nullptr, c.dim(0), c.dim(1),
                   static_cast<int>(sdk::dtype_size(c.dtype())), stream);
  OPCERT_CUDA_CHECK_LAUNCH("fill_rows");
}

void launch_transpose_f32(const float* src, float* dst, int64_t rows, int64_t cols, cudaStream_t stream) {
  if (rows * cols == 0) return;
  transpose_f32<<<blocks_for(rows * cols), kThreads, 0, stream>>>(src, dst, rows, cols);
}

}  // namespace opcert::cuda
