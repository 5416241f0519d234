// The skinny fp8 GEMM's kernel (gemm_fp8_skinny.h), templated on its tile so that
// ci/gpu/probes/fp8_skinny_probe.cu can time the shapes it was chosen from. A block of kWarps warps
// owns kTileN output columns and every row (M ≤ 16, one m16n8k32 tile along M). Its warps split K
// between them, 128-wide blocks dealt round-robin, and each warp streams its blocks of the weight
// through a private kStages-deep cp.async ring, so the main loop has no block-wide barrier and each
// SM keeps tens of KiB of weight reads in flight (what a bandwidth-bound GEMM needs). The warps'
// sums meet once in shared memory, added in a fixed order (the result does not depend on timing),
// where the scales, bias and output rounding apply.
#pragma once

#include "ops/fp8_mma_common.cuh"
#include "ops/gemm_fp8_mma.h"

namespace opcert::cuda::skinny {

using namespace fp8mma;

inline constexpr int kRowsA = 16;    // the one MMA tile along M
inline constexpr int kKBlock = 128;  // K per stage, and the scale block along K
// Rows padded by 16 bytes so that a warp's fragment loads (8 rows × 4 words) hit 32 banks.
inline constexpr int kRowBytes = kKBlock + 16;

/// A tile: kTileN output columns (a multiple of 8, at most 128) per block of kWarps warps, each
/// with a kStages-deep ring.
template <int kTileNArg, int kWarpsArg, int kStagesArg>
struct Tile {
  static constexpr int kTileN = kTileNArg, kWarps = kWarpsArg, kStages = kStagesArg;
  static constexpr int kTilesN = kTileN / 8;  // m16n8k32 tiles along N
  static constexpr int kThreads = kWarps * 32;
  static constexpr int kStageBytes = (kRowsA + kTileN) * kRowBytes;
  static constexpr int kWarpRingBytes = kStages * kStageBytes;
  static constexpr int kSmemBytes = kWarps * kWarpRingBytes;
  static_assert(kTileN % 8 == 0 && 128 % kTileN == 0, "a tile lies inside one 128-column weight block");
  static_assert(kWarps * kRowsA * kTileN * sizeof(float) <= kSmemBytes, "the reduction reuses the rings");
};

// Queues the copies of K block kb into one stage: A's M real rows (the padding rows stay the zeros
// written once) and the tile's 32 weight rows; what lies past N or K reads as zero.
template <class T>
__device__ __forceinline__ void load_stage(uint8_t* stage, const Fp8MmaProblem& p, int64_t n0, int64_t kb, int lane) {
  constexpr int kTileN = T::kTileN;
  constexpr int kChunks = kKBlock / 16;
  const auto* a = static_cast<const uint8_t*>(p.a);
  const auto* b = static_cast<const uint8_t*>(p.b);
  const int64_t k0 = kb * kKBlock;
  const int a_chunks = static_cast<int>(p.m) * kChunks;
  for (int c = lane; c < a_chunks; c += 32) {
    const int r = c / kChunks;
    const int64_t gk = k0 + (c % kChunks) * 16;
    const bool inside = gk < p.k;
    cp_async16(stage + r * kRowBytes + (c % kChunks) * 16, inside ? a + r * p.k + gk : a, inside ? 16 : 0);
  }
  uint8_t* b_tile = stage + kRowsA * kRowBytes;
#pragma unroll
  for (int c = lane; c < kTileN * kChunks; c += 32) {
    const int r = c / kChunks;
    const int64_t gn = n0 + r, gk = k0 + (c % kChunks) * 16;
    const bool inside = gn < p.n && gk < p.k;
    cp_async16(b_tile + r * kRowBytes + (c % kChunks) * 16, inside ? b + gn * p.k + gk : b, inside ? 16 : 0);
  }
}

// part = A_block · B_blockᵀ for the stage's 128-deep K block.
template <class T, bool kAE5m2, bool kBE5m2>
__device__ __forceinline__ void mma_stage(const uint8_t* stage, int lane, float (&part)[T::kTilesN][4]) {
  constexpr int kTilesN = T::kTilesN;
  const int group = lane / 4, quad = lane % 4;
  const uint8_t* b_tile = stage + kRowsA * kRowBytes;
#pragma unroll
  for (int ks = 0; ks < kKBlock / 32; ++ks) {
    const uint8_t* pa = stage + group * kRowBytes + ks * 32 + quad * 4;
    const uint32_t a[4] = {load_word(pa), load_word(pa + 8 * kRowBytes), load_word(pa + 16),
                           load_word(pa + 8 * kRowBytes + 16)};
#pragma unroll
    for (int nt = 0; nt < kTilesN; ++nt) {
      const uint8_t* pb = b_tile + (nt * 8 + group) * kRowBytes + ks * 32 + quad * 4;
      const uint32_t bf[2] = {load_word(pb), load_word(pb + 16)};
      mma_fp8<kAE5m2, kBE5m2>(part[nt], a, bf);
    }
  }
}

template <class T, bool kAE5m2, bool kBE5m2>
__global__ void __launch_bounds__(T::kThreads) fp8_skinny_gemm_kernel(Fp8MmaProblem p) {
  constexpr int kTileN = T::kTileN, kTilesN = T::kTilesN, kWarps = T::kWarps, kStages = T::kStages;
  constexpr int kThreads = T::kThreads, kStageBytes = T::kStageBytes;
  using Acc = float[kTilesN][4];
  extern __shared__ __align__(16) uint8_t smem[];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int group = lane / 4, quad = lane % 4;
  const int64_t n0 = int64_t{blockIdx.x} * kTileN;
  const int64_t k_blocks = (p.k + kKBlock - 1) / kKBlock;
  const bool block_scaled = p.scaling == sdk::Fp8Scaling::kBlock;
  uint8_t* ring = smem + warp * T::kWarpRingBytes;

  // A's rows past M are never copied: zero them once in every stage.
  for (int i = lane; i < kStages * (kRowsA - static_cast<int>(p.m)) * (kRowBytes / 16); i += 32) {
    const int per_stage = (kRowsA - static_cast<int>(p.m)) * (kRowBytes / 16);
    const int s = i / per_stage, rest = i % per_stage;
    const int r = static_cast<int>(p.m) + rest / (kRowBytes / 16), chunk = rest % (kRowBytes / 16);
    *reinterpret_cast<uint4*>(ring + s * kStageBytes + r * kRowBytes + chunk * 16) = make_uint4(0, 0, 0, 0);
  }

  // This warp's K blocks: warp, warp + 4, ...; the i-th of them lives in stage i % kStages.
  const int64_t mine = warp < k_blocks ? (k_blocks - warp + kWarps - 1) / kWarps : 0;
  auto block_of = [&](int64_t i) { return warp + i * kWarps; };
#pragma unroll
  for (int s = 0; s < kStages - 1; ++s) {
    if (s < mine) load_stage<T>(ring + s * kStageBytes, p, n0, block_of(s), lane);
    cp_async_commit();  // empty groups keep the count of pending groups uniform
  }

  Acc acc = {};
  for (int64_t i = 0; i < mine; ++i) {
    if (i + kStages - 1 < mine)
      load_stage<T>(ring + ((i + kStages - 1) % kStages) * kStageBytes, p, n0, block_of(i + kStages - 1), lane);
    cp_async_commit();
    cp_async_wait_pending<kStages - 1>();  // block i's copies have landed
    __syncwarp();
    Acc part = {};
    mma_stage<T, kAE5m2, kBE5m2>(ring + (i % kStages) * kStageBytes, lane, part);
    // Promotion into the fp32 sum, with the block's scales a_scale[row, kb] · b_scale[n0 / 128, kb]
    // (a tile lies inside one 128-column weight block).
    float s[2] = {1.f, 1.f};
    if (block_scaled) {
      const int64_t kb = block_of(i);
      const float b_block = p.b_scale[(n0 / 128) * k_blocks + kb];
      for (int half = 0; half < 2; ++half) {
        const int row = group + 8 * half;
        s[half] = row < p.m ? p.a_scale[row * k_blocks + kb] * b_block : 0.f;
      }
    }
#pragma unroll
    for (int nt = 0; nt < kTilesN; ++nt)
#pragma unroll
      for (int e = 0; e < 4; ++e) acc[nt][e] += part[nt][e] * s[e / 2];
    __syncwarp();  // the next iteration's copies overwrite the stage just read
  }
  cp_async_wait_pending<0>();
  __syncthreads();

  // The warps' sums, added in warp order, then the scales, the bias and the rounding.
  auto* red = reinterpret_cast<float*>(smem);
#pragma unroll
  for (int nt = 0; nt < kTilesN; ++nt)
#pragma unroll
    for (int e = 0; e < 4; ++e)
      red[(warp * kRowsA + group + 8 * (e / 2)) * kTileN + nt * 8 + quad * 2 + e % 2] = acc[nt][e];
  __syncthreads();
  const float tensor_scale = p.scaling == sdk::Fp8Scaling::kTensor ? p.a_scale[0] * p.b_scale[0] : 1.f;
  for (int idx = threadIdx.x; idx < p.m * kTileN; idx += kThreads) {
    const int row = idx / kTileN, col = idx % kTileN;
    const int64_t gn = n0 + col;
    if (gn >= p.n) continue;
    float v = 0.f;
#pragma unroll
    for (int w = 0; w < kWarps; ++w) v += red[(w * kRowsA + row) * kTileN + col];
    if (p.scaling == sdk::Fp8Scaling::kChannel)
      v *= p.a_scale[row] * p.b_scale[gn];
    else if (p.scaling == sdk::Fp8Scaling::kTensor)
      v *= tensor_scale;
    if (p.bias) v += load_bias(p.bias, gn, p.out);
    store_out(p.c, row * p.n + gn, v, p.out);
  }
}

}  // namespace opcert::cuda::skinny
