// cuda.quantize.fused: dynamic quantization to int8 / fp8 (docs/OPS.md "quantize"), as the CPU
// backend computes it: amax = max |x| in fp32, scale = amax / qmax (0 when amax is 0, and then
// every q is 0), q = round_q(clamp(x / scale, -qmax, qmax)) with a true division.
// Per token, a row lives in registers (row_plan.cuh): one read of x, one write of q; rows too long
// for registers are read twice. Per tensor, one kernel takes the amax of everything into scratch
// (an atomic max on the bits of a non-negative float, which order as unsigned integers), a second
// quantizes. Operands: the SDK's parse_quantize.
#include <cuda_fp8.h>
#include <opcert/sdk/checked_implementation.h>
#include <opcert/sdk/ops/quantize.h>

#include "cuda_check.h"
#include "cuda_implementations.h"
#include "ops/launch_common.cuh"
#include "ops/row_plan.cuh"
#include "ops/vector_io.cuh"

namespace opcert::cuda {
namespace {

enum class QOut { i8, e4m3, e5m2 };

template <QOut kOut>
inline constexpr float kQmax = kOut == QOut::i8 ? 127.0f : kOut == QOut::e4m3 ? 448.0f : 57344.0f;

struct QuantArgs {
  const void* x = nullptr;
  void* q = nullptr;
  float* scale = nullptr;
  int64_t m = 0, k = 0;
  unsigned* amax_bits = nullptr;  // per tensor: the running amax in scratch
};

/// scale = amax / qmax in fp32, 0 when amax is 0.
template <QOut kOut>
__device__ __forceinline__ float scale_of(float amax) {
  return amax == 0.0f ? 0.0f : __fdiv_rn(amax, kQmax<kOut>);
}

/// x / scale clamped to +-qmax as std::clamp does it (a NaN stays NaN); 0 when scale is 0.
template <QOut kOut>
__device__ __forceinline__ float quotient(float x, float scale) {
  constexpr float q = kQmax<kOut>;
  if (scale == 0.0f) return 0.0f;
  const float z = __fdiv_rn(x, scale);
  return z < -q ? -q : (q < z ? q : z);
}

/// Encodes W clamped quotients and stores them at q (W bytes, aligned to W when W is 4 or 8).
/// The values are within +-qmax, so saturation never applies; int8 rounds half to even.
template <QOut kOut, int W>
__device__ __forceinline__ void store_codes(uint8_t* q, const float (&z)[W]) {
  uint8_t b[W];
  if constexpr (kOut == QOut::i8) {
#pragma unroll
    for (int i = 0; i < W; ++i) b[i] = static_cast<uint8_t>(static_cast<int8_t>(__float2int_rn(z[i])));
  } else {
    constexpr __nv_fp8_interpretation_t kind = kOut == QOut::e4m3 ? __NV_E4M3 : __NV_E5M2;
    if constexpr (W % 2 == 0) {
#pragma unroll
      for (int i = 0; i < W; i += 2) {
        const __nv_fp8x2_storage_t two = __nv_cvt_float2_to_fp8x2(make_float2(z[i], z[i + 1]), __NV_SATFINITE, kind);
        b[i] = static_cast<uint8_t>(two & 0xFFu);
        b[i + 1] = static_cast<uint8_t>(two >> 8);
      }
    } else {
#pragma unroll
      for (int i = 0; i < W; ++i) b[i] = __nv_cvt_float_to_fp8(z[i], __NV_SATFINITE, kind);
    }
  }
  if constexpr (W == 8) {
    uint2 raw;
    __builtin_memcpy(&raw, b, 8);
    *reinterpret_cast<uint2*>(q) = raw;
  } else if constexpr (W == 4) {
    uint32_t raw;
    __builtin_memcpy(&raw, b, 4);
    *reinterpret_cast<uint32_t*>(q) = raw;
  } else {
#pragma unroll
    for (int i = 0; i < W; ++i) q[i] = b[i];
  }
}

/// Per token, the row in registers: amax, scale, codes. The next row's loads are issued before
/// this row's reduction.
template <class T, QOut kOut, int W, int C, int NT>
__global__ void __launch_bounds__(rows::block_threads(NT), rows::min_blocks(NT, C)) quantize_rows(QuantArgs a) {
  __shared__ float red[64];
  rows::Group<NT> g;
  const int k = static_cast<int>(a.k);
  const T* __restrict__ x = static_cast<const T*>(a.x);
  uint8_t* __restrict__ q = static_cast<uint8_t*>(a.q);

  vio::Pack<T, W> xv[C];
  auto load_row = [&](int64_t row) {
#pragma unroll
    for (int c = 0; c < C; ++c) {
      const int e = (g.rank + c * NT) * W;
      if (e < k) vio::load<T, W>(x + row * k + e, xv[c]);
    }
  };
  if (rows::kPrefetch<T, W, C> && g.first_row < a.m) load_row(g.first_row);

  for (int64_t row = g.first_row; row < a.m; row += g.row_stride) {
    if (!rows::kPrefetch<T, W, C>) load_row(row);
    const int64_t base = row * k;
    float v[C][W];
    float amax = 0.0f;
#pragma unroll
    for (int c = 0; c < C; ++c) {
      const int e = (g.rank + c * NT) * W;
#pragma unroll
      for (int i = 0; i < W; ++i) {
        v[c][i] = e < k ? vio::to_f32(xv[c].v[i]) : 0.0f;
        amax = fmaxf(amax, fabsf(v[c][i]));
      }
    }
    const int64_t next = row + g.row_stride;
    if (rows::kPrefetch<T, W, C> && next < a.m) load_row(next);
    const float scale = scale_of<kOut>(g.reduce(amax, rows::Max{}, red));
    if (g.rank == 0) a.scale[row] = scale;
#pragma unroll
    for (int c = 0; c < C; ++c) {
      const int e = (g.rank + c * NT) * W;
      if (e < k) {
#pragma unroll
        for (int i = 0; i < W; ++i) v[c][i] = quotient<kOut>(v[c][i], scale);
        store_codes<kOut, W>(q + base + e, v[c]);
      }
    }
  }
}

/// Per token, rows too long for registers: a block per row, x read twice.
template <class T, QOut kOut, int W>
__global__ void __launch_bounds__(rows::kStreamThreads, 2) quantize_stream(QuantArgs a) {
  __shared__ float smem[64];
  rows::Group<rows::kStreamThreads> g;
  const T* __restrict__ x = static_cast<const T*>(a.x);
  uint8_t* __restrict__ q = static_cast<uint8_t*>(a.q);
  const int64_t step = int64_t{rows::kStreamThreads} * W;
  for (int64_t row = g.first_row; row < a.m; row += g.row_stride) {
    const int64_t base = row * a.k;
    float amax = 0.0f;
    for (int64_t e = int64_t{g.rank} * W; e < a.k; e += step) {
      float v[W];
      vio::load<T, W>(x + base + e, v);
#pragma unroll
      for (int i = 0; i < W; ++i) amax = fmaxf(amax, fabsf(v[i]));
    }
    const float scale = scale_of<kOut>(g.reduce(amax, rows::Max{}, smem));
    if (g.rank == 0) a.scale[row] = scale;
    for (int64_t e = int64_t{g.rank} * W; e < a.k; e += step) {
      float v[W];
      vio::load<T, W>(x + base + e, v);
#pragma unroll
      for (int i = 0; i < W; ++i) v[i] = quotient<kOut>(v[i], scale);
      store_codes<kOut, W>(q + base + e, v);
    }
  }
}

/// Per tensor, pass 1: the amax of all n elements, max-ed into *a.amax_bits (zeroed before).
/// Accesses of W elements over the first n - n % W, then the tail element by element.
template <class T, int W>
__global__ void __launch_bounds__(256) amax_all(QuantArgs a) {
  __shared__ float smem[64];
  rows::Group<256> g;
  const T* __restrict__ x = static_cast<const T*>(a.x);
  const int64_t n = a.m * a.k;
  const int64_t body = n - n % W;
  const int64_t stride = int64_t{gridDim.x} * 256 * W;
  float amax = 0.0f;
  for (int64_t e = (int64_t{blockIdx.x} * 256 + threadIdx.x) * W; e < body; e += stride) {
    float v[W];
    vio::load<T, W>(x + e, v);
#pragma unroll
    for (int i = 0; i < W; ++i) amax = fmaxf(amax, fabsf(v[i]));
  }
  if (blockIdx.x == 0)
    for (int64_t e = body + threadIdx.x; e < n; e += 256) amax = fmaxf(amax, fabsf(vio::to_f32(x[e])));
  amax = g.reduce(amax, rows::Max{}, smem);
  if (threadIdx.x == 0 && amax > 0.0f) atomicMax(a.amax_bits, __float_as_uint(amax));
}

/// Per tensor, pass 2: scale from the amax, then every element.
template <class T, QOut kOut, int W>
__global__ void __launch_bounds__(256) quantize_all(QuantArgs a) {
  const T* __restrict__ x = static_cast<const T*>(a.x);
  uint8_t* __restrict__ q = static_cast<uint8_t*>(a.q);
  const float scale = scale_of<kOut>(__uint_as_float(*a.amax_bits));
  if (blockIdx.x == 0 && threadIdx.x == 0) a.scale[0] = scale;
  const int64_t n = a.m * a.k;
  const int64_t body = n - n % W;
  const int64_t stride = int64_t{gridDim.x} * 256 * W;
  for (int64_t e = (int64_t{blockIdx.x} * 256 + threadIdx.x) * W; e < body; e += stride) {
    float v[W];
    vio::load<T, W>(x + e, v);
#pragma unroll
    for (int i = 0; i < W; ++i) v[i] = quotient<kOut>(v[i], scale);
    store_codes<kOut, W>(q + e, v);
  }
  if (blockIdx.x == 0)
    for (int64_t e = body + threadIdx.x; e < n; e += 256) {
      const float z[1] = {quotient<kOut>(vio::to_f32(x[e]), scale)};
      store_codes<kOut, 1>(q + e, z);
    }
}

template <class T, QOut kOut>
void launch_per_token(CudaContext& ctx, const QuantArgs& a) {
  constexpr int V = vio::kVec<T>;
  const bool vec = a.k % V == 0 && aligned16({a.x, a.q});
  const rows::Plan p = rows::plan(a.k, V, vec);
  if (p.chunks == 0) {
    auto launch = [&](auto* kernel) {
      const unsigned grid = resident_grid(ctx, kernel, p.threads, 0, a.m);
      kernel<<<grid, p.threads, 0, ctx.stream>>>(a);
      OPCERT_CUDA_CHECK_LAUNCH("quantize_stream");
    };
    if (vec) launch(quantize_stream<T, kOut, V>);
    else launch(quantize_stream<T, kOut, 1>);
    return;
  }
  rows::with_plan<T>(p, [&]<int W, int C, int NT>() {
    auto* kernel = quantize_rows<T, kOut, W, C, NT>;
    const unsigned grid = resident_grid(ctx, kernel, p.threads, 0, a.m, p.threads / NT);
    kernel<<<grid, p.threads, 0, ctx.stream>>>(a);
    OPCERT_CUDA_CHECK_LAUNCH("quantize_rows");
  });
}

template <class T, QOut kOut>
void launch_per_tensor(CudaContext& ctx, QuantArgs a) {
  constexpr int V = vio::kVec<T>;
  a.amax_bits = static_cast<unsigned*>(ctx.scratch.get(sizeof(unsigned)));
  OPCERT_CUDA_CHECK(cudaMemsetAsync(a.amax_bits, 0, sizeof(unsigned), ctx.stream));
  const int64_t n = a.m * a.k;
  auto launch = [&](auto* amax_kernel, auto* quant_kernel, int w) {
    unsigned grid = resident_grid(ctx, amax_kernel, 256, 0, n, int64_t{256} * w);
    amax_kernel<<<grid, 256, 0, ctx.stream>>>(a);
    OPCERT_CUDA_CHECK_LAUNCH("quantize_amax_all");
    grid = resident_grid(ctx, quant_kernel, 256, 0, n, int64_t{256} * w);
    quant_kernel<<<grid, 256, 0, ctx.stream>>>(a);
    OPCERT_CUDA_CHECK_LAUNCH("quantize_all");
  };
  // The flat tensor's body goes in 16-byte accesses when x and q start aligned.
  if (aligned16({a.x, a.q})) launch(amax_all<T, V>, quantize_all<T, kOut, V>, V);
  else launch(amax_all<T, 1>, quantize_all<T, kOut, 1>, 1);
}

template <class T>
void launch_quantize(CudaContext& ctx, const QuantArgs& a, int32_t q_dtype, bool per_tensor) {
  auto go = [&]<QOut kOut>() {
    if (per_tensor) launch_per_tensor<T, kOut>(ctx, a);
    else launch_per_token<T, kOut>(ctx, a);
  };
  switch (q_dtype) {
    case OPCERT_DTYPE_I8: go.template operator()<QOut::i8>(); break;
    case OPCERT_DTYPE_F8_E4M3FN: go.template operator()<QOut::e4m3>(); break;
    default: go.template operator()<QOut::e5m2>(); break;
  }
}

void run(CudaContext& ctx, const sdk::QuantizeOperands& g) {
  const bool per_tensor = g.granularity == sdk::QuantGranularity::kTensor;
  QuantArgs a;
  a.m = g.m;
  a.k = g.k;
  a.x = g.x->data<const void>();
  a.q = g.q->data<void>();
  a.scale = g.scale->data<float>();
  // No element: every scale is 0 (amax of nothing is 0), q is empty.
  if (a.m * a.k == 0) {
    const int64_t scales = per_tensor ? 1 : a.m;
    if (scales > 0) OPCERT_CUDA_CHECK(cudaMemsetAsync(a.scale, 0, sizeof(float) * scales, ctx.stream));
    return;
  }
  switch (g.x->dtype()) {
    case OPCERT_DTYPE_F32: launch_quantize<float>(ctx, a, g.q->dtype(), per_tensor); break;
    case OPCERT_DTYPE_F16: launch_quantize<__half>(ctx, a, g.q->dtype(), per_tensor); break;
    default: launch_quantize<__nv_bfloat16>(ctx, a, g.q->dtype(), per_tensor); break;
  }
}

std::vector<sdk::Implementation> quantize_implementations(CudaContext& ctx) {
  return {sdk::checked_implementation(
      {"cuda.quantize.fused", "quantize",
       "dynamic per-token (row in registers: one read) or per-tensor (amax pass, then quantize) quantization "
       "to int8 / fp8, fp32 amax and a true division as the CPU backend",
       OPCERT_DEVICE_CUDA},
      sdk::parse_quantize, [&ctx](const sdk::QuantizeOperands& g) { run(ctx, g); })};
}

}  // namespace

OPCERT_REGISTER_IMPLEMENTATIONS(CudaImplementations, "quantize", quantize_implementations)

}  // namespace opcert::cuda
