// The fp8 mma.sync GEMM: a 128×128 output tile per block of 8 warps (2 along M × 4 along N, each
// 64×32), K consumed 128 at a time through a two-stage shared-memory pipeline. Each 128-wide K
// block's fp32 partial sum is promoted into the running sum with that block's scales (block
// scaling) or as is; per-tensor and per-channel scales and the bias apply once at the end.
// Promoting every 128 also bounds the accumulation error the way docs/TOLERANCES.md assumes for
// fp8 tensor cores.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "ops/fp8_mma_common.cuh"
#include "ops/gemm_fp8_mma.h"
#include "ops/launch_common.cuh"
#include "ops/vector_io.cuh"

namespace opcert::cuda {
namespace {

using namespace fp8mma;

constexpr int kTileM = 128, kTileN = 128;
constexpr int kTileK = 128;  // also the scale block along K
constexpr int kThreads = 256;
constexpr int kWarpM = 64, kWarpN = 32;
constexpr int kMmaTilesM = kWarpM / 16, kMmaTilesN = kWarpN / 8;
// Rows padded by 16 bytes: the 32 fragment loads of a warp (8 rows × 4 words) then fall in 32
// distinct banks.
constexpr int kRowBytes = kTileK + 16;
constexpr int kStageBytes = (kTileM + kTileN) * kRowBytes;
constexpr int kSmemBytes = 2 * kStageBytes;

using Acc = float[kMmaTilesM][kMmaTilesN][4];

// Rows [row0, row0 + 128) × K columns [k0, k0 + 128) of a row-major [rows, k] fp8 matrix into a
// padded tile; what lies outside the matrix reads as zero (fp8 0x00 is +0 in both formats).
// kAligned: K % 16 == 0 and the matrix 16-byte aligned, so a 16-byte chunk is wholly in or out.
template <bool kAligned>
__device__ __forceinline__ void load_tile(uint8_t* tile, const uint8_t* g, int64_t rows, int64_t k, int64_t row0,
                                          int64_t k0) {
  constexpr int kChunksPerRow = kTileK / 16;
  for (int c = threadIdx.x; c < kTileM * kChunksPerRow; c += kThreads) {
    const int r = c / kChunksPerRow, chunk = c % kChunksPerRow;
    const int64_t gr = row0 + r, gk = k0 + chunk * 16;
    uint8_t* dst = tile + r * kRowBytes + chunk * 16;
    if constexpr (kAligned) {
      const bool inside = gr < rows && gk < k;
      cp_async16(dst, inside ? g + gr * k + gk : g, inside ? 16 : 0);
    } else {
      uint32_t w[4] = {0, 0, 0, 0};
      if (gr < rows)
        for (int i = 0; i < 16 && gk + i < k; ++i) w[i / 4] |= uint32_t{g[gr * k + gk + i]} << (8 * (i % 4));
      *reinterpret_cast<uint4*>(dst) = make_uint4(w[0], w[1], w[2], w[3]);
    }
  }
}

// One 128-deep K block of the warp's 64×32 tile: part = A_tile · B_tileᵀ.
template <bool kAE5m2, bool kBE5m2>
__device__ __forceinline__ void mma_k_block(const uint8_t* a_tile, const uint8_t* b_tile, int wm, int wn, int lane,
                                            Acc& part) {
  const int group = lane / 4, quad = lane % 4;
#pragma unroll
  for (int ks = 0; ks < kTileK / 32; ++ks) {
    uint32_t a[kMmaTilesM][4], b[kMmaTilesN][2];
#pragma unroll
    for (int mt = 0; mt < kMmaTilesM; ++mt) {
      const uint8_t* p = a_tile + (wm * kWarpM + mt * 16 + group) * kRowBytes + ks * 32 + quad * 4;
      a[mt][0] = load_word(p);
      a[mt][1] = load_word(p + 8 * kRowBytes);
      a[mt][2] = load_word(p + 16);
      a[mt][3] = load_word(p + 8 * kRowBytes + 16);
    }
#pragma unroll
    for (int nt = 0; nt < kMmaTilesN; ++nt) {
      const uint8_t* p = b_tile + (wn * kWarpN + nt * 8 + group) * kRowBytes + ks * 32 + quad * 4;
      b[nt][0] = load_word(p);
      b[nt][1] = load_word(p + 16);
    }
#pragma unroll
    for (int mt = 0; mt < kMmaTilesM; ++mt)
#pragma unroll
      for (int nt = 0; nt < kMmaTilesN; ++nt) mma_fp8<kAE5m2, kBE5m2>(part[mt][nt], a[mt], b[nt]);
  }
}

template <bool kAE5m2, bool kBE5m2, bool kAligned>
__global__ void __launch_bounds__(kThreads) fp8_mma_gemm_kernel(Fp8MmaProblem p) {
  extern __shared__ __align__(16) uint8_t smem[];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int wm = warp / (kTileN / kWarpN), wn = warp % (kTileN / kWarpN);
  const int group = lane / 4, quad = lane % 4;
  const int64_t m0 = int64_t{blockIdx.y} * kTileM, n0 = int64_t{blockIdx.x} * kTileN;
  const auto* a = static_cast<const uint8_t*>(p.a);
  const auto* b = static_cast<const uint8_t*>(p.b);
  const int64_t k_blocks = (p.k + kTileK - 1) / kTileK;
  const bool block_scaled = p.scaling == sdk::Fp8Scaling::kBlock;

  auto load_stage = [&](int stage, int64_t kb) {
    uint8_t* base = smem + stage * kStageBytes;
    load_tile<kAligned>(base, a, p.m, p.k, m0, kb * kTileK);
    load_tile<kAligned>(base + kTileM * kRowBytes, b, p.n, p.k, n0, kb * kTileK);
    cp_async_commit();
  };

  Acc acc = {}, part;
  load_stage(0, 0);
  for (int64_t kb = 0; kb < k_blocks; ++kb) {
    if (kb + 1 < k_blocks)
      load_stage(static_cast<int>((kb + 1) & 1), kb + 1);
    else
      cp_async_commit();  // an empty group keeps "all but the newest" meaning this block's copies
    cp_async_wait_all_but_newest();
    __syncthreads();
    const uint8_t* a_tile = smem + (kb & 1) * kStageBytes;
#pragma unroll
    for (int mt = 0; mt < kMmaTilesM; ++mt)
#pragma unroll
      for (int nt = 0; nt < kMmaTilesN; ++nt)
#pragma unroll
        for (int e = 0; e < 4; ++e) part[mt][nt][e] = 0.f;
    mma_k_block<kAE5m2, kBE5m2>(a_tile, a_tile + kTileM * kRowBytes, wm, wn, lane, part);
    // Promotion: the block's scales are a_scale[row, kb] · b_scale[n0 / 128, kb] (tiles are
    // 128-aligned along N, so one weight block covers the tile).
    const float b_block_scale = block_scaled ? p.b_scale[(n0 / kTileN) * k_blocks + kb] : 1.f;
#pragma unroll
    for (int mt = 0; mt < kMmaTilesM; ++mt)
#pragma unroll
      for (int half = 0; half < 2; ++half) {
        float s = 1.f;
        if (block_scaled) {
          const int64_t row = m0 + wm * kWarpM + mt * 16 + group + 8 * half;
          s = row < p.m ? p.a_scale[row * k_blocks + kb] * b_block_scale : 0.f;
        }
#pragma unroll
        for (int nt = 0; nt < kMmaTilesN; ++nt) {
          acc[mt][nt][2 * half] += part[mt][nt][2 * half] * s;
          acc[mt][nt][2 * half + 1] += part[mt][nt][2 * half + 1] * s;
        }
      }
    __syncthreads();  // the next iteration's copies overwrite the stage just read
  }

  const float tensor_scale = p.scaling == sdk::Fp8Scaling::kTensor ? p.a_scale[0] * p.b_scale[0] : 1.f;
#pragma unroll
  for (int mt = 0; mt < kMmaTilesM; ++mt)
#pragma unroll
    for (int half = 0; half < 2; ++half) {
      const int64_t row = m0 + wm * kWarpM + mt * 16 + group + 8 * half;
      if (row >= p.m) continue;
      const float row_scale = p.scaling == sdk::Fp8Scaling::kChannel ? p.a_scale[row] : tensor_scale;
#pragma unroll
      for (int nt = 0; nt < kMmaTilesN; ++nt)
#pragma unroll
        for (int j = 0; j < 2; ++j) {
          const int64_t col = n0 + wn * kWarpN + nt * 8 + quad * 2 + j;
          if (col >= p.n) continue;
          float v = acc[mt][nt][2 * half + j];
          if (p.scaling == sdk::Fp8Scaling::kChannel)
            v *= row_scale * p.b_scale[col];
          else if (p.scaling == sdk::Fp8Scaling::kTensor)
            v *= row_scale;
          if (p.bias) v += load_bias(p.bias, col, p.out);
          store_out(p.c, row * p.n + col, v, p.out);
        }
    }
}

template <bool kAE5m2, bool kBE5m2, bool kAligned>
void launch_typed(const CudaContext& ctx, const Fp8MmaProblem& p) {
  auto* kernel = fp8_mma_gemm_kernel<kAE5m2, kBE5m2, kAligned>;
  prepare_smem(ctx, kernel, kSmemBytes);
  const dim3 grid(static_cast<unsigned>(ceil_div(p.n, kTileN)), static_cast<unsigned>(ceil_div(p.m, kTileM)));
  kernel<<<grid, kThreads, kSmemBytes, ctx.stream>>>(p);
}

template <bool kAE5m2, bool kBE5m2>
void launch_aligned_or_not(const CudaContext& ctx, const Fp8MmaProblem& p) {
  if (p.k % 16 == 0 && aligned16({p.a, p.b}))
    launch_typed<kAE5m2, kBE5m2, true>(ctx, p);
  else
    launch_typed<kAE5m2, kBE5m2, false>(ctx, p);
}

}  // namespace

std::optional<std::string> fp8_mma_unavailable(const CudaContext& ctx, const void* kernel) {
  if (ctx.props.major * 10 + ctx.props.minor < 89)
    return "fp8 mma.sync needs compute capability 8.9 or later (this device: " + std::to_string(ctx.props.major) + "." +
           std::to_string(ctx.props.minor) + ")";
  if (auto problem = kernel_image_problem(ctx.device, kernel, 89, "the fp8 mma.sync kernel"); !problem.empty())
    return problem;
  return std::nullopt;
}

std::optional<std::string> fp8_mma_gemm_unavailable(const CudaContext& ctx) {
  return fp8_mma_unavailable(ctx, reinterpret_cast<const void*>(fp8_mma_gemm_kernel<false, false, true>));
}

void launch_fp8_mma_gemm(const CudaContext& ctx, const Fp8MmaProblem& p) {
  fp8mma::with_fp8_formats(p.a_e5m2, p.b_e5m2, [&]<bool kAE5m2, bool kBE5m2>() { launch_aligned_or_not<kAE5m2, kBE5m2>(ctx, p); });
}

}  // namespace opcert::cuda
