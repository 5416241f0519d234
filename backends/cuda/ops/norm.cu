// cuda.rms_norm.fused and cuda.layer_norm.fused (docs/OPS.md "rms_norm", "layer_norm"): the
// residual add, the statistics and the scaling in one pass over memory. A row lives in registers
// (row_plan.cuh: a warp per row up to 512 bf16 / 256 fp32 elements, a block per row up to 16384
// bf16 / 8192 fp32) so x and the residual are read once and y and residual_out written once;
// longer rows are streamed, re-reading x. fp32 math as the CPU backend does it: r = round(x + residual), then
// rms_norm  y = r * (1 / sqrt(sum(r^2) / H + eps)) * w
// layer_norm y = (r - mean) * (1 / sqrt(sum((r - mean)^2) / H + eps)) * w + b   (two-pass variance).
// Operands: the SDK's parse_rms_norm / parse_layer_norm.
#include <opcert/sdk/checked_implementation.h>
#include <opcert/sdk/ops/layer_norm.h>
#include <opcert/sdk/ops/rms_norm.h>

#include <string>

#include "cuda_check.h"
#include "cuda_implementations.h"
#include "ops/launch_common.cuh"
#include "ops/row_plan.cuh"
#include "ops/vector_io.cuh"

namespace opcert::cuda {
namespace {

/// The problem as the kernels see it; weight, bias, residual and residual_out may be null.
struct NormArgs {
  const void* x = nullptr;
  const void* residual = nullptr;
  const void* weight = nullptr;
  const void* bias = nullptr;
  void* y = nullptr;
  void* residual_out = nullptr;
  int64_t rows = 0;
  int64_t h = 0;
  float eps = 0.0f;
};

/// The register kernel: each group (warp or block) normalises rows first_row, first_row + stride, ...
/// - The grid is resident (one wave), so each block stages weight and bias in shared memory once,
///   and the output phase of every row reads them there instead of waiting on L2.
/// - The next row's loads are issued before this row's reductions (kPrefetch, where registers
///   allow), so the memory system has work while rows reduce.
/// - Rows are held in T: r is rounded to T anyway, and packed halves take half the registers.
/// Dynamic shared memory: weight then bias, h elements each, when present.
template <class T, int W, int C, int NT, bool kLayer, bool kPrefetch = rows::kPrefetch<T, W, C>,
          int kMinBlocks = rows::min_blocks(NT, C)>
__global__ void __launch_bounds__(rows::block_threads(NT), kMinBlocks) norm_rows(NormArgs a) {
  extern __shared__ uint4 dyn_smem[];
  __shared__ float red[64];
  rows::Group<NT> g;
  const int h = static_cast<int>(a.h);
  const T* __restrict__ x = static_cast<const T*>(a.x);
  const T* __restrict__ res = static_cast<const T*>(a.residual);
  T* __restrict__ y = static_cast<T*>(a.y);
  T* __restrict__ res_out = static_cast<T*>(a.residual_out);
  const bool has_w = a.weight != nullptr, has_b = a.bias != nullptr;
  T* sw = reinterpret_cast<T*>(dyn_smem);
  T* sb = sw + (has_w ? h : 0);
  {
    const T* w = static_cast<const T*>(a.weight);
    const T* b = static_cast<const T*>(a.bias);
    for (int e = static_cast<int>(threadIdx.x) * W; e < h; e += static_cast<int>(blockDim.x) * W) {
      vio::Pack<T, W> p;
      if (has_w) {
        vio::load<T, W>(w + e, p);
        vio::store_shared<T, W>(sw + e, p);
      }
      if (has_b) {
        vio::load<T, W>(b + e, p);
        vio::store_shared<T, W>(sb + e, p);
      }
    }
    __syncthreads();
  }
  const float hf = static_cast<float>(h);
  const T zero = vio::from_f32<T>(0.0f);

  // x and residual of a row as stored; accesses past h hold zeros (they add nothing to the sums).
  vio::Pack<T, W> xv[C], rv[C];
  auto load_row = [&](int64_t row) {
    const int64_t base = row * h;
#pragma unroll
    for (int c = 0; c < C; ++c) {
      const int e = (g.rank + c * NT) * W;
      if (e < h) {
        vio::load<T, W>(x + base + e, xv[c]);
        if (res != nullptr) vio::load<T, W>(res + base + e, rv[c]);
      } else {
#pragma unroll
        for (int i = 0; i < W; ++i) xv[c].v[i] = zero;
      }
    }
  };
  if (kPrefetch && g.first_row < a.rows) load_row(g.first_row);

  for (int64_t row = g.first_row; row < a.rows; row += g.row_stride) {
    if (!kPrefetch) load_row(row);
    const int64_t base = row * h;
    vio::Pack<T, W> v[C];
#pragma unroll
    for (int c = 0; c < C; ++c) {
      v[c] = xv[c];
      const int e = (g.rank + c * NT) * W;
      if (res != nullptr && e < h) {
        // One fp32 add, one rounding: the rounded sum is both residual_out and what is normalised.
#pragma unroll
        for (int i = 0; i < W; ++i) v[c].v[i] = vio::from_f32<T>(vio::to_f32(xv[c].v[i]) + vio::to_f32(rv[c].v[i]));
        vio::store<T, W>(res_out + base + e, v[c]);
      }
    }
    const int64_t next = row + g.row_stride;
    if (kPrefetch && next < a.rows) load_row(next);

    float shift = 0.0f, scale;
    if constexpr (kLayer) {
      float s = 0.0f;
#pragma unroll
      for (int c = 0; c < C; ++c)
#pragma unroll
        for (int i = 0; i < W; ++i) s += vio::to_f32(v[c].v[i]);
      shift = g.reduce(s, rows::Sum{}, red) / hf;
      float d = 0.0f;
#pragma unroll
      for (int c = 0; c < C; ++c) {
        const int e = (g.rank + c * NT) * W;
#pragma unroll
        for (int i = 0; i < W; ++i) {
          const float t = vio::to_f32(v[c].v[i]) - shift;
          if (e < h) d += t * t;
        }
      }
      scale = 1.0f / sqrtf(g.reduce(d, rows::Sum{}, red) / hf + a.eps);
    } else {
      float s = 0.0f;
#pragma unroll
      for (int c = 0; c < C; ++c)
#pragma unroll
        for (int i = 0; i < W; ++i) {
          const float t = vio::to_f32(v[c].v[i]);
          s += t * t;
        }
      scale = 1.0f / sqrtf(g.reduce(s, rows::Sum{}, red) / hf + a.eps);
    }

#pragma unroll
    for (int c = 0; c < C; ++c) {
      const int e = (g.rank + c * NT) * W;
      if (e < h) {
        float o[W], wv[W], bv[W];
        if (has_w) vio::load_shared<T, W>(sw + e, wv);
        if (has_b) vio::load_shared<T, W>(sb + e, bv);
#pragma unroll
        for (int i = 0; i < W; ++i) {
          o[i] = (vio::to_f32(v[c].v[i]) - shift) * scale;
          if (has_w) o[i] *= wv[i];
          if (has_b) o[i] += bv[i];
        }
        vio::store<T, W>(y + base + e, o);
      }
    }
  }
}

/// Rows too long for registers: a block per row, re-reading x (and the residual) on each pass;
/// round(x + residual) is recomputed identically each time and written on the last pass.
template <class T, int W, bool kLayer>
__global__ void __launch_bounds__(rows::kStreamThreads, 2) norm_stream(NormArgs a) {
  __shared__ float smem[64];
  rows::Group<rows::kStreamThreads> g;
  const T* __restrict__ x = static_cast<const T*>(a.x);
  const T* __restrict__ res = static_cast<const T*>(a.residual);
  const T* __restrict__ w = static_cast<const T*>(a.weight);
  const T* __restrict__ b = static_cast<const T*>(a.bias);
  T* __restrict__ y = static_cast<T*>(a.y);
  T* __restrict__ res_out = static_cast<T*>(a.residual_out);
  const float hf = static_cast<float>(a.h);
  const int64_t step = int64_t{rows::kStreamThreads} * W;

  auto load_r = [&](int64_t at, float (&v)[W]) {
    vio::load<T, W>(x + at, v);
    if (res != nullptr) {
      float r[W];
      vio::load<T, W>(res + at, r);
#pragma unroll
      for (int i = 0; i < W; ++i) v[i] = vio::round_trip<T>(v[i] + r[i]);
    }
  };

  for (int64_t row = g.first_row; row < a.rows; row += g.row_stride) {
    const int64_t base = row * a.h;
    float shift = 0.0f, s = 0.0f;
    for (int64_t e = int64_t{g.rank} * W; e < a.h; e += step) {
      float v[W];
      load_r(base + e, v);
#pragma unroll
      for (int i = 0; i < W; ++i) s += kLayer ? v[i] : v[i] * v[i];
    }
    s = g.reduce(s, rows::Sum{}, smem);
    if constexpr (kLayer) {
      shift = s / hf;
      s = 0.0f;
      for (int64_t e = int64_t{g.rank} * W; e < a.h; e += step) {
        float v[W];
        load_r(base + e, v);
#pragma unroll
        for (int i = 0; i < W; ++i) s += (v[i] - shift) * (v[i] - shift);
      }
      s = g.reduce(s, rows::Sum{}, smem);
    }
    const float scale = 1.0f / sqrtf(s / hf + a.eps);
    for (int64_t e = int64_t{g.rank} * W; e < a.h; e += step) {
      float v[W], wv[W], bv[W];
      load_r(base + e, v);
      if (res_out != nullptr) vio::store<T, W>(res_out + base + e, v);
      if (w != nullptr) vio::load<T, W>(w + e, wv);
      if (b != nullptr) vio::load<T, W>(b + e, bv);
#pragma unroll
      for (int i = 0; i < W; ++i) {
        float o = (v[i] - shift) * scale;
        if (w != nullptr) o *= wv[i];
        if (b != nullptr) o += bv[i];
        v[i] = o;
      }
      vio::store<T, W>(y + base + e, v);
    }
  }
}

template <class T, bool kLayer>
void launch_norm(CudaContext& ctx, const NormArgs& a) {
  constexpr int V = vio::kVec<T>;
  const bool vec = a.h % V == 0 && aligned16({a.x, a.residual, a.weight, a.bias, a.y, a.residual_out});
  const rows::Plan p = rows::plan(a.h, V, vec);
  if (p.chunks == 0) {
    auto launch = [&](auto* kernel) {
      const unsigned grid = resident_grid(ctx, kernel, p.threads, 0, a.rows);
      kernel<<<grid, p.threads, 0, ctx.stream>>>(a);
      OPCERT_CUDA_CHECK_LAUNCH(kLayer ? "layer_norm_stream" : "rms_norm_stream");
    };
    if (vec) launch(norm_stream<T, V, kLayer>);
    else launch(norm_stream<T, 1, kLayer>);
    return;
  }
  const std::size_t smem =
      static_cast<std::size_t>(a.h) * sizeof(T) * ((a.weight != nullptr ? 1 : 0) + (a.bias != nullptr ? 1 : 0));
  rows::with_plan<T>(p, [&]<int W, int C, int NT>() {
    auto* kernel = norm_rows<T, W, C, NT, kLayer>;
    prepare_smem(ctx, kernel, smem);
    const int64_t rows_per_block = p.threads / NT;
    const unsigned grid = resident_grid(ctx, kernel, p.threads, smem, a.rows, rows_per_block);
    kernel<<<grid, p.threads, smem, ctx.stream>>>(a);
    OPCERT_CUDA_CHECK_LAUNCH(kLayer ? "layer_norm_rows" : "rms_norm_rows");
  });
}

/// The kernels' view of operands that parsed (with data).
NormArgs args_of(const sdk::NormOperands& n) {
  NormArgs a;
  a.h = n.h;
  a.rows = n.h == 0 ? 0 : n.t;
  a.eps = static_cast<float>(n.eps);
  a.x = n.x->data<const void>();
  a.y = n.y->data<void>();
  a.weight = n.weight ? n.weight->data<const void>() : nullptr;
  a.bias = n.bias ? n.bias->data<const void>() : nullptr;
  a.residual = n.residual ? n.residual->data<const void>() : nullptr;
  a.residual_out = n.residual_out ? n.residual_out->data<void>() : nullptr;
  return a;
}

void run(CudaContext& ctx, const sdk::NormOperands& n) {
  const NormArgs a = args_of(n);
  if (a.rows == 0) return;  // no element: nothing to write
  const bool layer = n.kind == sdk::NormKind::kLayer;
  switch (n.dtype) {
    case OPCERT_DTYPE_F32: layer ? launch_norm<float, true>(ctx, a) : launch_norm<float, false>(ctx, a); break;
    case OPCERT_DTYPE_F16: layer ? launch_norm<__half, true>(ctx, a) : launch_norm<__half, false>(ctx, a); break;
    default: layer ? launch_norm<__nv_bfloat16, true>(ctx, a) : launch_norm<__nv_bfloat16, false>(ctx, a); break;
  }
}

sdk::Implementation make(CudaContext& ctx, sdk::NormKind kind) {
  const std::string op = sdk::norm_name(kind);
  return sdk::checked_implementation({"cuda." + op + ".fused", op,
                                      op + " with the residual add fused: a row per warp or block held in registers, one "
                                           "pass over memory, 16-byte accesses, fp32 math",
                                      OPCERT_DEVICE_CUDA},
                                     kind == sdk::NormKind::kRms ? sdk::parse_rms_norm : sdk::parse_layer_norm,
                                     [&ctx](const sdk::NormOperands& n) { run(ctx, n); });
}

std::vector<sdk::Implementation> norm_implementations(CudaContext& ctx) {
  return {make(ctx, sdk::NormKind::kRms), make(ctx, sdk::NormKind::kLayer)};
}

}  // namespace

OPCERT_REGISTER_IMPLEMENTATIONS(CudaImplementations, "norm", norm_implementations)

}  // namespace opcert::cuda
