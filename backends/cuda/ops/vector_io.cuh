// Element access of the memory-bound kernels (norms, rope, softmax, quantize): conversions between
// the storage dtypes and fp32 (round to nearest even, once), and runs of W consecutive elements
// moved as one 16-byte access when W * sizeof(T) == 16, else element by element.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>

namespace opcert::cuda::vio {

/// Elements of T in one 16-byte access.
template <class T>
inline constexpr int kVec = static_cast<int>(16 / sizeof(T));

template <class T>
__device__ __forceinline__ float to_f32(T x);
template <>
__device__ __forceinline__ float to_f32<float>(float x) { return x; }
template <>
__device__ __forceinline__ float to_f32<__half>(__half x) { return __half2float(x); }
template <>
__device__ __forceinline__ float to_f32<__nv_bfloat16>(__nv_bfloat16 x) { return __bfloat162float(x); }

template <class T>
__device__ __forceinline__ T from_f32(float x);
template <>
__device__ __forceinline__ float from_f32<float>(float x) { return x; }
template <>
__device__ __forceinline__ __half from_f32<__half>(float x) { return __float2half_rn(x); }
template <>
__device__ __forceinline__ __nv_bfloat16 from_f32<__nv_bfloat16>(float x) { return __float2bfloat16_rn(x); }

/// x rounded to T and back: the value a T holds (the residual add is rounded once, then used).
template <class T>
__device__ __forceinline__ float round_trip(float x) { return to_f32(from_f32<T>(x)); }

/// W elements of T, laid out as in memory; 16-byte aligned when they fill 16 bytes.
template <class T, int W>
struct alignas(W * sizeof(T) == 16 ? 16 : alignof(T)) Pack {
  T v[W];
};

/// Loads W consecutive elements at p as stored (16-byte aligned when they fill 16 bytes).
/// Read-only data: goes through the non-coherent path.
template <class T, int W>
__device__ __forceinline__ void load(const T* p, Pack<T, W>& out) {
  if constexpr (W * sizeof(T) == 16) {
    const uint4 raw = __ldg(reinterpret_cast<const uint4*>(p));
    static_assert(sizeof(out) == sizeof(raw));
    __builtin_memcpy(&out, &raw, sizeof(raw));
  } else {
#pragma unroll
    for (int i = 0; i < W; ++i) out.v[i] = p[i];
  }
}

/// Stores W elements at p as they are.
template <class T, int W>
__device__ __forceinline__ void store(T* p, const Pack<T, W>& in) {
  if constexpr (W * sizeof(T) == 16) {
    uint4 raw;
    __builtin_memcpy(&raw, &in, sizeof(raw));
    *reinterpret_cast<uint4*>(p) = raw;
  } else {
#pragma unroll
    for (int i = 0; i < W; ++i) p[i] = in.v[i];
  }
}

/// Shared-memory counterparts (plain accesses: the non-coherent path is for global memory).
template <class T, int W>
__device__ __forceinline__ void store_shared(T* p, const Pack<T, W>& in) {
  *reinterpret_cast<Pack<T, W>*>(p) = in;
}
template <class T, int W>
__device__ __forceinline__ void load_shared(const T* p, float (&f)[W]) {
  const Pack<T, W> pack = *reinterpret_cast<const Pack<T, W>*>(p);
#pragma unroll
  for (int i = 0; i < W; ++i) f[i] = to_f32(pack.v[i]);
}

/// Loads W consecutive elements at p as fp32.
template <class T, int W>
__device__ __forceinline__ void load(const T* p, float (&f)[W]) {
  Pack<T, W> pack;
  load<T, W>(p, pack);
#pragma unroll
  for (int i = 0; i < W; ++i) f[i] = to_f32(pack.v[i]);
}

/// Stores W fp32 values at p, each rounded once to T.
template <class T, int W>
__device__ __forceinline__ void store(T* p, const float (&f)[W]) {
  Pack<T, W> pack;
#pragma unroll
  for (int i = 0; i < W; ++i) pack.v[i] = from_f32<T>(f[i]);
  store<T, W>(p, pack);
}

/// Copies W elements unchanged (bits, not values: NaN payloads and -0 survive).
template <class T, int W>
__device__ __forceinline__ void copy(const T* src, T* dst) {
  if constexpr (W * sizeof(T) == 16) {
    *reinterpret_cast<uint4*>(dst) = __ldg(reinterpret_cast<const uint4*>(src));
  } else {
#pragma unroll
    for (int i = 0; i < W; ++i) dst[i] = src[i];
  }
}

/// Loads n consecutive fp32 (n = 1, 2, 4 or 8; p aligned to min(4n, 16) bytes) from a read-only table.
template <int N>
__device__ __forceinline__ void load_f32(const float* p, float (&f)[N]) {
  if constexpr (N % 4 == 0) {
#pragma unroll
    for (int i = 0; i < N; i += 4) {
      const float4 v = __ldg(reinterpret_cast<const float4*>(p + i));
      f[i] = v.x;
      f[i + 1] = v.y;
      f[i + 2] = v.z;
      f[i + 3] = v.w;
    }
  } else if constexpr (N == 2) {
    const float2 v = __ldg(reinterpret_cast<const float2*>(p));
    f[0] = v.x;
    f[1] = v.y;
  } else {
#pragma unroll
    for (int i = 0; i < N; ++i) f[i] = __ldg(p + i);
  }
}

}  // namespace opcert::cuda::vio
