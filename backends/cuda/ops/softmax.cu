// cuda.softmax.fused: softmax over the last dimension of a tensor of any rank (docs/OPS.md
// "softmax"), fp32 math. Rows up to 16384 bf16 / 8192 fp32 elements live in registers
// (row_plan.cuh): one read, one write. Longer rows (a 128256-entry vocabulary) take a block each
// and two reads: an online pass for max and sum, then the write pass.
// A row holding a NaN or +inf, or only -inf, is NaN throughout (torch's answer): NaN is counted
// as +inf in the max, so both show as max = +inf. Operands: the SDK's parse_softmax.
#include <opcert/sdk/checked_implementation.h>
#include <opcert/sdk/ops/softmax.h>

#include "cuda_check.h"
#include "cuda_implementations.h"
#include "ops/launch_common.cuh"
#include "ops/row_plan.cuh"
#include "ops/vector_io.cuh"

namespace opcert::cuda {
namespace {

struct SoftmaxArgs {
  const void* x = nullptr;
  void* y = nullptr;
  int64_t rows = 0;
  int64_t n = 0;
};

/// The value x counts as in the row max: NaN as +inf, so that either makes the row NaN.
__device__ __forceinline__ float max_key(float x) { return x != x ? __builtin_huge_valf() : x; }

/// True when the row max says the row is NaN: it held a NaN or +inf, or only -inf.
__device__ __forceinline__ bool nan_row(float m) { return fabsf(m) == __builtin_huge_valf(); }

/// The register kernel; the next row's loads are issued before this row's reductions.
template <class T, int W, int C, int NT, bool kPrefetch = rows::kPrefetch<T, W, C>, int kMinBlocks = rows::min_blocks(NT, C)>
__global__ void __launch_bounds__(rows::block_threads(NT), kMinBlocks) softmax_rows(SoftmaxArgs a) {
  __shared__ float red[64];
  rows::Group<NT> g;
  const int n = static_cast<int>(a.n);
  const T* __restrict__ x = static_cast<const T*>(a.x);
  T* __restrict__ y = static_cast<T*>(a.y);

  vio::Pack<T, W> xv[C];
  auto load_row = [&](int64_t row) {
#pragma unroll
    for (int c = 0; c < C; ++c) {
      const int e = (g.rank + c * NT) * W;
      if (e < n) vio::load<T, W>(x + row * n + e, xv[c]);
    }
  };
  if (kPrefetch && g.first_row < a.rows) load_row(g.first_row);

  for (int64_t row = g.first_row; row < a.rows; row += g.row_stride) {
    if (!kPrefetch) load_row(row);
    const int64_t base = row * n;
    float v[C][W];
    float m = -__builtin_huge_valf();
#pragma unroll
    for (int c = 0; c < C; ++c) {
      const int e = (g.rank + c * NT) * W;
#pragma unroll
      for (int i = 0; i < W; ++i) {
        v[c][i] = e < n ? vio::to_f32(xv[c].v[i]) : 0.0f;
        if (e + i < n) m = fmaxf(m, max_key(v[c][i]));
      }
    }
    const int64_t next = row + g.row_stride;
    if (kPrefetch && next < a.rows) load_row(next);
    m = g.reduce(m, rows::Max{}, red);
    if (nan_row(m)) {  // the same bits in every thread of the group: a uniform branch
#pragma unroll
      for (int c = 0; c < C; ++c) {
        const int e = (g.rank + c * NT) * W;
#pragma unroll
        for (int i = 0; i < W; ++i) v[c][i] = __builtin_nanf("");
        if (e < n) vio::store<T, W>(y + base + e, v[c]);
      }
      continue;
    }
    float s = 0.0f;
#pragma unroll
    for (int c = 0; c < C; ++c) {
      const int e = (g.rank + c * NT) * W;
#pragma unroll
      for (int i = 0; i < W; ++i) {
        v[c][i] = expf(v[c][i] - m);
        if (e + i < n) s += v[c][i];
      }
    }
    const float inv = 1.0f / g.reduce(s, rows::Sum{}, red);
#pragma unroll
    for (int c = 0; c < C; ++c) {
      const int e = (g.rank + c * NT) * W;
#pragma unroll
      for (int i = 0; i < W; ++i) v[c][i] *= inv;
      if (e < n) vio::store<T, W>(y + base + e, v[c]);
    }
  }
}

/// Rows too long for registers: a block per row. Pass 1 keeps each thread's running max and its
/// sum of exp(x - max), rescaled when the max grows (online softmax); pass 2 writes.
template <class T, int W>
__global__ void __launch_bounds__(rows::kStreamThreads, 2) softmax_stream(SoftmaxArgs a) {
  __shared__ float smem[64];
  rows::Group<rows::kStreamThreads> g;
  const T* __restrict__ x = static_cast<const T*>(a.x);
  T* __restrict__ y = static_cast<T*>(a.y);
  const int64_t step = int64_t{rows::kStreamThreads} * W;
  constexpr float kInf = __builtin_huge_valf();

  for (int64_t row = g.first_row; row < a.rows; row += g.row_stride) {
    const int64_t base = row * a.n;
    float m = -kInf, s = 0.0f;
    bool bad = false;
    for (int64_t e = int64_t{g.rank} * W; e < a.n; e += step) {
      float v[W];
      vio::load<T, W>(x + base + e, v);
#pragma unroll
      for (int i = 0; i < W; ++i) {
        const float t = v[i];
        if (t != t || t == kInf) {
          bad = true;
        } else if (t > m) {
          s = s * expf(m - t) + 1.0f;  // m = -inf at first: exp(-inf) = 0 and s = 0
          m = t;
        } else if (t > -kInf) {
          s += expf(t - m);
        }
      }
    }
    const float row_max = g.reduce(bad ? kInf : m, rows::Max{}, smem);
    if (nan_row(row_max)) {
      for (int64_t e = int64_t{g.rank} * W; e < a.n; e += step) {
        float v[W];
#pragma unroll
        for (int i = 0; i < W; ++i) v[i] = __builtin_nanf("");
        vio::store<T, W>(y + base + e, v);
      }
      continue;
    }
    // A thread that saw only -inf has s = 0 and m = -inf: its share is 0 * exp(-inf) = 0.
    const float inv = 1.0f / g.reduce(s * expf(m - row_max), rows::Sum{}, smem);
    for (int64_t e = int64_t{g.rank} * W; e < a.n; e += step) {
      float v[W];
      vio::load<T, W>(x + base + e, v);
#pragma unroll
      for (int i = 0; i < W; ++i) v[i] = expf(v[i] - row_max) * inv;
      vio::store<T, W>(y + base + e, v);
    }
  }
}

template <class T>
void launch_softmax(CudaContext& ctx, const SoftmaxArgs& a) {
  constexpr int V = vio::kVec<T>;
  const bool vec = a.n % V == 0 && aligned16({a.x, a.y});
  const rows::Plan p = rows::plan(a.n, V, vec);
  if (p.chunks == 0) {
    auto launch = [&](auto* kernel) {
      const unsigned grid = resident_grid(ctx, kernel, p.threads, 0, a.rows);
      kernel<<<grid, p.threads, 0, ctx.stream>>>(a);
      OPCERT_CUDA_CHECK_LAUNCH("softmax_stream");
    };
    if (vec) launch(softmax_stream<T, V>);
    else launch(softmax_stream<T, 1>);
    return;
  }
  rows::with_plan<T>(p, [&]<int W, int C, int NT>() {
    auto* kernel = softmax_rows<T, W, C, NT>;
    const unsigned grid = resident_grid(ctx, kernel, p.threads, 0, a.rows, p.threads / NT);
    kernel<<<grid, p.threads, 0, ctx.stream>>>(a);
    OPCERT_CUDA_CHECK_LAUNCH("softmax_rows");
  });
}

void run(CudaContext& ctx, const sdk::SoftmaxOperands& s) {
  if (s.rows == 0) return;  // an empty tensor
  const SoftmaxArgs a{s.x->data<const void>(), s.y->data<void>(), s.rows, s.n};
  switch (s.dtype) {
    case OPCERT_DTYPE_F32: launch_softmax<float>(ctx, a); break;
    case OPCERT_DTYPE_F16: launch_softmax<__half>(ctx, a); break;
    default: launch_softmax<__nv_bfloat16>(ctx, a); break;
  }
}

std::vector<sdk::Implementation> softmax_implementations(CudaContext& ctx) {
  return {sdk::checked_implementation(
      {"cuda.softmax.fused", "softmax",
       "softmax over the last dimension, fp32 math: rows up to 16384 elements held in registers (one read), "
       "longer rows in two passes (online max and sum, then the write)",
       OPCERT_DEVICE_CUDA},
      sdk::parse_softmax, [&ctx](const sdk::SoftmaxOperands& s) { run(ctx, s); })};
}

}  // namespace

OPCERT_REGISTER_IMPLEMENTATIONS(CudaImplementations, "softmax", softmax_implementations)

}  // namespace opcert::cuda
