#include "collectives/avg_divide.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <opcert/sdk/backend.h>

#include <algorithm>
#include <string>

#include "cuda_check.h"

namespace opcert::cuda {
namespace {

__device__ float to_float(float v) { return v; }
__device__ float to_float(__half v) { return __half2float(v); }
__device__ float to_float(__nv_bfloat16 v) { return __bfloat162float(v); }

template <class T>
__device__ T from_float(float v);
template <>
__device__ float from_float<float>(float v) { return v; }
template <>
__device__ __half from_float<__half>(float v) { return __float2half_rn(v); }
template <>
__device__ __nv_bfloat16 from_float<__nv_bfloat16>(float v) { return __float2bfloat16_rn(v); }

// The sums are integers well inside fp32, so the fp32 quotient is correctly rounded and its one
// rounding into T cannot land on a tie the exact quotient would not: it matches the fp64 reference.
template <class T>
__global__ void divide(T* data, int64_t count, float n) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += stride)
    data[i] = from_float<T>(to_float(data[i]) / n);  // IEEE division: nvcc's default -prec-div=true
}

template <class T>
void launch(void* data, int64_t count, int n, cudaStream_t stream) {
  constexpr int kThreads = 256;
  const int64_t blocks = std::min<int64_t>((count + kThreads - 1) / kThreads, 4096);
  divide<T><<<static_cast<unsigned>(blocks), kThreads, 0, stream>>>(static_cast<T*>(data), count, static_cast<float>(n));
  OPCERT_CUDA_CHECK_LAUNCH("avg divide");
}

}  // namespace

void divide_by_ranks(void* data, int64_t count, int32_t dtype, int n, cudaStream_t stream) {
  if (count == 0) return;
  switch (dtype) {
    case OPCERT_DTYPE_F32: return launch<float>(data, count, n, stream);
    case OPCERT_DTYPE_F16: return launch<__half>(data, count, n, stream);
    case OPCERT_DTYPE_BF16: return launch<__nv_bfloat16>(data, count, n, stream);
    default:
      throw sdk::Error(OPCERT_ERROR_INTERNAL, "avg by division is for fp32, fp16 and bf16, not " + sdk::dtype_name(dtype));
  }
}

}  // namespace opcert::cuda
