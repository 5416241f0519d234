// The Hopper attention forward (cuda.attention.wgmma): FlashAttention's algorithm on warpgroup MMA
// (wgmma.mma_async, sm_90a), fp16/bf16, head dims 64 and 128.
//
// A CTA owns a tile of kWG * 64 query rows of one head and one sequence; each of its kWG
// warpgroups owns 64 rows (one wgmma M). Key/value tiles of 128 keys stream through a ring of three
// shared-memory stages, loaded by every thread with cp.async (16 bytes a thread, zero-filled past
// the end of the keys). Every tile (Q, K, V) is kept as D/64 column blocks of [rows][64 elements],
// 128-byte rows with the 128-byte swizzle (16-byte chunk c of row r at chunk c ^ (r % 8)), each
// block 1024-byte aligned: the canonical layout that wgmma reads through a descriptor with
// swizzle mode 1 (128B). S = Q·Kᵀ reads both operands from shared memory, K-major (D contiguous);
// O += P·V takes P from registers (the S accumulators rounded to T, whose layout is the A-fragment
// layout) and V from shared memory, N-major (D contiguous; the transpose bit of 16-bit types).
//
// Pipelining, per warpgroup, iteration i (tile i in stage i % 3, its P in registers):
//   wait for tile i+1's copies, barrier, start copying tile i+2 into the stage tile i-1 left;
//   issue S(i+1) = Q·K(i+1)ᵀ and O += P(i)·V(i) (two wgmma groups);
//   wait for the first: mask and exponentiate S(i+1) while P(i)·V(i) runs;
//   wait for the second: rescale O, round P(i+1).
// The online softmax is fp32 with exp2 (scale folded into log2 units) as in
// attention_flash_kernel.cuh, whose fragment helpers (mask_rows, softmax_rows, ...) it shares: the
// wgmma accumulator of a warp is the mma.sync m16n8 layout repeated over N.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <type_traits>

#include "cuda_check.h"
#include "ops/attention_common.cuh"
#include "ops/attention_flash_kernel.cuh"
#include "ops/hopper_async.cuh"

// wgmma needs the sm_90a target; every other device pass compiles the kernel as a trap (the host
// never launches it off compute capability 9.x, and checks that the image it got is sm_90a).
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900 && defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define OPCERT_WGMMA_OK 1
#else
#define OPCERT_WGMMA_OK 0
#endif

namespace opcert::cuda::attn {

// ---- PTX wrappers --------------------------------------------------------------------------

__device__ inline void wgmma_fence() {
#if OPCERT_WGMMA_OK
  asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
#endif
}
__device__ inline void wgmma_commit() {
#if OPCERT_WGMMA_OK
  asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
#endif
}
/// Waits until at most N of this warpgroup's wgmma groups are pending.
template <int N>
__device__ inline void wgmma_wait() {
#if OPCERT_WGMMA_OK
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory");
#endif
}
/// Pins a register the asynchronous wgmma reads or writes: the compiler may not move its other
/// uses across the wgmma waits around it.
template <int N0, int N1>
__device__ inline void fence_regs(float (&r)[N0][N1]) {
#pragma unroll
  for (int i = 0; i < N0; ++i)
#pragma unroll
    for (int j = 0; j < N1; ++j) asm volatile("" : "+f"(r[i][j])::"memory");
}
template <int N0, int N1>
__device__ inline void fence_regs(uint32_t (&r)[N0][N1]) {
#pragma unroll
  for (int i = 0; i < N0; ++i)
#pragma unroll
    for (int j = 0; j < N1; ++j) asm volatile("" : "+r"(r[i][j])::"memory");
}

/// Shared-memory matrix descriptor (PTX ISA "Matrix Descriptor Format"): start address, leading
/// and stride byte offsets (all >> 4, 14 bits), base offset 0 (every swizzle pattern starts on a
/// 1024-byte boundary), swizzle mode 1 = 128B in bits 62-63.
__device__ inline uint64_t sw128_desc(uint32_t addr, uint32_t lbo, uint32_t sbo) {
  return static_cast<uint64_t>((addr & 0x3FFFFu) >> 4) | (static_cast<uint64_t>((lbo & 0x3FFFFu) >> 4) << 16) |
         (static_cast<uint64_t>((sbo & 0x3FFFFu) >> 4) << 32) | (uint64_t{1} << 62);
}

// Accumulator operands: float (&d)[N / 8][4] is the N/2 registers d0.. of the fragment in order.
#define OPCERT_WG_F4(d, nt) "+f"(d[nt][0]), "+f"(d[nt][1]), "+f"(d[nt][2]), "+f"(d[nt][3])
#define OPCERT_WG_F32(d, nt)                                                                        \
  OPCERT_WG_F4(d, nt), OPCERT_WG_F4(d, nt + 1), OPCERT_WG_F4(d, nt + 2), OPCERT_WG_F4(d, nt + 3), \
      OPCERT_WG_F4(d, nt + 4), OPCERT_WG_F4(d, nt + 5), OPCERT_WG_F4(d, nt + 6), OPCERT_WG_F4(d, nt + 7)
#define OPCERT_WG_R32                                                                                          \
  "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, " \
  "%23, %24, %25, %26, %27, %28, %29, %30, %31"
#define OPCERT_WG_R64                                                                                      \
  OPCERT_WG_R32 ", %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, " \
                "%49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63"

/// d (64 x 128, fp32) = (scale_d ? d : 0) + A·B for one k-step of 16: A (64 x 16) and B (16 x 128)
/// from shared memory through descriptors, both K-major.
template <class T>
__device__ inline void wgmma_ss_m64n128k16(float (&d)[16][4], uint64_t a, uint64_t b, int scale_d) {
#if OPCERT_WGMMA_OK
#define OPCERT_WG_SS(TY)                                                                                     \
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"                                                 \
               "wgmma.mma_async.sync.aligned.m64n128k16.f32." TY "." TY " {" OPCERT_WG_R64 "}, %64, %65, " \
               "p, 1, 1, 0, 0;\n}\n"                                                                         \
               : OPCERT_WG_F32(d, 0), OPCERT_WG_F32(d, 8)                                                    \
               : "l"(a), "l"(b), "r"(scale_d)                                                                \
               : "memory")
  if constexpr (std::is_same_v<T, __nv_bfloat16>) OPCERT_WG_SS("bf16");
  else OPCERT_WG_SS("f16");
#undef OPCERT_WG_SS
#else
  __trap();
#endif
}

/// d (64 x N, fp32) += A·B for one k-step of 16: A (64 x 16) from registers (the m64k16 A fragment),
/// B (16 x N) from shared memory through a descriptor, N-major (imm-trans-b = 1). N is 64 or 128.
template <class T, int N>
__device__ inline void wgmma_rs_m64k16(float (&d)[N / 8][4], const uint32_t (&a)[4], uint64_t b) {
  static_assert(N == 64 || N == 128);
#if OPCERT_WGMMA_OK
#define OPCERT_WG_RS(TY, NS, REGS, A0, A1, A2, A3, B, ONE, ...)                                                   \
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, " ONE ", 0;\n"                                                  \
               "wgmma.mma_async.sync.aligned.m64n" NS "k16.f32." TY "." TY " {" REGS "}, {" A0 ", " A1 ", " A2 \
               ", " A3 "}, " B ", p, 1, 1, 1;\n}\n"                                                               \
               : __VA_ARGS__                                                                                      \
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b), "r"(1)                                       \
               : "memory")
  if constexpr (N == 64) {
    if constexpr (std::is_same_v<T, __nv_bfloat16>)
      OPCERT_WG_RS("bf16", "64", OPCERT_WG_R32, "%32", "%33", "%34", "%35", "%36", "%37", OPCERT_WG_F32(d, 0));
    else
      OPCERT_WG_RS("f16", "64", OPCERT_WG_R32, "%32", "%33", "%34", "%35", "%36", "%37", OPCERT_WG_F32(d, 0));
  } else {
    if constexpr (std::is_same_v<T, __nv_bfloat16>)
      OPCERT_WG_RS("bf16", "128", OPCERT_WG_R64, "%64", "%65", "%66", "%67", "%68", "%69", OPCERT_WG_F32(d, 0),
                   OPCERT_WG_F32(d, 8));
    else
      OPCERT_WG_RS("f16", "128", OPCERT_WG_R64, "%64", "%65", "%66", "%67", "%68", "%69", OPCERT_WG_F32(d, 0),
                   OPCERT_WG_F32(d, 8));
  }
#undef OPCERT_WG_RS
#else
  __trap();
#endif
}

#undef OPCERT_WG_F4
#undef OPCERT_WG_F32
#undef OPCERT_WG_R32
#undef OPCERT_WG_R64

// ---- configuration -------------------------------------------------------------------------

/// kD head dim, kWG consumer warpgroups (64 query rows each). 128 keys a tile, 3 K/V stages.
template <int kD_, int kWG_>
struct WgmmaConfig {
  static constexpr int kD = kD_, kWG = kWG_;
  static constexpr int kBM = 64 * kWG, kBN = 128, kStages = 3;
  static constexpr int kThreads = 128 * kWG;
  static constexpr int kQBytes = kBM * kD * 2;    // [D/64][kBM][128 B]
  static constexpr int kTileBytes = kBN * kD * 2;  // one K or V tile: [D/64][kBN][128 B]
  static constexpr int kStageBytes = 2 * kTileBytes;  // K, then V
  // + 1024 bytes to align the dynamic buffer to the swizzle pattern (1024 B)
  static constexpr int kSmemBytes = kQBytes + kStages * kStageBytes + 1024;
  static_assert(kD % 64 == 0 && kD <= 128, "D must be whole 128-byte rows, and O must fit the registers");
};

/// Two warpgroups (128 query rows, up to 255 registers a thread): D 64 113 KB shared, D 128 225 KB.
template <int D>
struct WgmmaConfigFor;
template <>
struct WgmmaConfigFor<64> {
  using type = WgmmaConfig<64, 2>;
};
template <>
struct WgmmaConfigFor<128> {
  using type = WgmmaConfig<128, 2>;
};

/// Byte offset of 16-byte chunk c of row r in a [rows][D] tile kept as swizzled 64-column blocks.
template <int kRows>
__device__ inline uint32_t sw128_offset(int r, int c) {
  return static_cast<uint32_t>((c / 8) * kRows * 128 + r * 128 + (((c % 8) ^ (r % 8)) << 4));
}

/// The epilogue of a thread's two rows, row0 and row0 + 8 of a kRows-row tile: o = acc / l rounded
/// to T into `dst` (shared memory, the swizzled layout above), 0 for a row that saw no key, and the
/// row's lse to lse[row] where lse is set and the row is below `rows` (the tile's valid rows).
template <class T, int kRows, int DT>
__device__ inline void stage_o_rows(const float (&o_acc)[DT][4], const float (&row_sum)[2], const float (&row_max)[2],
                                    float scale, unsigned char* dst, int row0, int t4, float* lse, int rows) {
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    const RowFinish f = finish_row(row_sum[r], row_max[r], scale);
    const int row = row0 + 8 * r;
#pragma unroll
    for (int dt = 0; dt < DT; ++dt) {
      const float o0 = f.no_key ? 0.0f : o_acc[dt][2 * r] * f.inv;
      const float o1 = f.no_key ? 0.0f : o_acc[dt][2 * r + 1] * f.inv;
      *reinterpret_cast<uint32_t*>(dst + sw128_offset<kRows>(row, dt) + 4 * t4) = pack2<T>(o0, o1);
    }
    if (lse != nullptr && t4 == 0 && row < rows) lse[row] = f.lse;
  }
}

/// Copies rows [0, kRows) of a [rows, D] global tile (row stride `stride` elements) into `dst`
/// in the swizzled block layout, kThreads threads; rows at or past `valid` are zero-filled.
template <int D, int kRows, int kThreads, class T>
__device__ inline void load_tile_sw128(uint32_t dst, const T* src, int64_t stride, int valid, int tid) {
  constexpr int CH = D / 8, kRowStep = kThreads / CH, kIters = (kRows + kRowStep - 1) / kRowStep;
  static_assert(kThreads % CH == 0 && kRowStep % 8 == 0, "a thread's rows keep one swizzle phase");
  const int c = tid % CH, r0 = tid / CH;
  const uint32_t off = dst + sw128_offset<kRows>(r0, c);
#pragma unroll
  for (int it = 0; it < kIters; ++it) {
    const int r = r0 + it * kRowStep;
    if (kRows % kRowStep == 0 || r < kRows) {
      const bool ok = r < valid;
      cp_async_16(off + static_cast<uint32_t>(it * kRowStep * 128), src + (ok ? r * stride + c * 8 : 0), ok);
    }
  }
}

// ---- the kernel ----------------------------------------------------------------------------

template <class T, class Cfg>
__global__ void __launch_bounds__(Cfg::kThreads, 1) attention_wgmma_kernel(const Params p) {
#if OPCERT_WGMMA_OK
  constexpr int D = Cfg::kD, BM = Cfg::kBM, BN = Cfg::kBN, ST = Cfg::kStages, NT = BN / 8, DT = D / 8;
  constexpr uint32_t kTileBytes = Cfg::kTileBytes, kStageBytes = Cfg::kStageBytes;
  extern __shared__ unsigned char smem_raw[];
  // What only the epilogue and the K/V copies need, parked in shared memory so that it holds no
  // registers in the loop.
  __shared__ struct {
    T* o;
    float* lse;
    int64_t q_stride;
    int rows;
    const T* k;
    const T* v;
    int64_t kv_stride;
  } epi;
  const uint32_t raw_addr = smem_addr(smem_raw);
  const uint32_t base = (raw_addr + 1023u) & ~1023u;
  unsigned char* const smem = smem_raw + (base - raw_addr);
  const uint32_t sQ = base, sKV = base + Cfg::kQBytes;  // stage s: K at sKV + s * kStageBytes, V after it

  const int tid = threadIdx.x, wg = tid / 128, warp = (tid % 128) / 32, lane = tid % 32;
  const int g = lane / 4, t4 = lane % 4;

  CtaTile<T> t;
  if (!cta_tile<T, D>(p, BM, t)) return;
  if (t.key_hi <= t.key_lo) {  // no query of the tile sees a key
    write_empty_tile<T, D>(t, tid, Cfg::kThreads);
    return;
  }
  if (tid == 0) epi = {t.o, t.lse, t.q_stride, t.rows, t.k, t.v, t.kv_stride};  // read after a barrier
  const int skv = t.s.skv;
  // Key tiles [n_min, n_max), visited from the last: tile i of the walk is key tile n_first - i.
  const int n_min = t.key_lo / BN, n_first = (t.key_hi + BN - 1) / BN - 1;
  const int tiles = n_first - n_min + 1;
  // (the prologue's copies use t; later ones read epi, written before the walk's first barrier)
  auto load_kv_from = [&](const T* k, const T* v, int64_t kv_stride, int n, int stage) {
    const uint32_t dst = sKV + static_cast<uint32_t>(stage) * kStageBytes;
    const int64_t first = int64_t{n} * BN * kv_stride;
    load_tile_sw128<D, BN, Cfg::kThreads>(dst, k + first, kv_stride, skv - n * BN, tid);
    load_tile_sw128<D, BN, Cfg::kThreads>(dst + kTileBytes, v + first, kv_stride, skv - n * BN, tid);
  };
  auto load_kv = [&](int n, int stage) { load_kv_from(epi.k, epi.v, epi.kv_stride, n, stage); };

  // Descriptors. Q (A of S, K-major): the warpgroup's 64 rows, 8-row groups 1024 B apart (SBO);
  // LBO unused for swizzled K-major (encoded 1). K (B of S, K-major): 128 keys, the same strides.
  // A k-step of 16 elements is 32 bytes into the 128-byte swizzled row; steps 4..7 (D 128) are in
  // the second column block. V (B of O, N-major): a k-step is 16 keys = 2 groups of 8 rows 1024 B
  // apart (SBO); the 64-column blocks along N are kBN * 128 B apart (LBO; D 128 only).
  auto q_desc = [&](int kk) {
    return sw128_desc(sQ + (kk / 4) * BM * 128 + wg * 64 * 128 + (kk % 4) * 32, 16, 1024);
  };
  auto k_desc = [&](int stage, int kk) {
    return sw128_desc(sKV + stage * kStageBytes + (kk / 4) * BN * 128 + (kk % 4) * 32, 16, 1024);
  };
  auto v_desc = [&](int stage, int kk) {
    return sw128_desc(sKV + stage * kStageBytes + kTileBytes + kk * 16 * 128, BN * 128, 1024);
  };

  float s_acc[NT][4];  // S of the warpgroup's 64 rows: this thread's rows i0 and i0 + 8
  float o_acc[DT][4];
  uint32_t p_frag[NT / 2][4];
  float row_max[2] = {-INFINITY, -INFINITY}, row_sum[2] = {0.0f, 0.0f};
  zero_fragments(s_acc);
  zero_fragments(o_acc);
  const float sl2 = p.scale_log2;
  const int i0 = t.m0 + wg * 64 + warp * 16 + g;  // the thread's first query row in the sequence

  auto issue_s = [&](int stage) {
#pragma unroll
    for (int kk = 0; kk < D / 16; ++kk) wgmma_ss_m64n128k16<T>(s_acc, q_desc(kk), k_desc(stage, kk), kk > 0);
    wgmma_commit();
  };
  auto issue_o = [&](int stage) {
#pragma unroll
    for (int kk = 0; kk < BN / 16; ++kk) wgmma_rs_m64k16<T, D>(o_acc, p_frag[kk], v_desc(stage, kk));
    wgmma_commit();
  };
  // Masks and exponentiates s_acc (key tile n) in place; alpha rescales o_acc once it is safe.
  auto softmax_tile = [&](int n, float (&alpha)[2]) {
    const int n0 = n * BN;
    if (tile_needs_mask(p, n0, BN, t.m0, BM, skv, t.offset)) mask_rows(s_acc, p, i0, n0, skv, t.offset, t4);
    softmax_rows(s_acc, row_max, row_sum, sl2, alpha);
  };

  // Prologue: Q and tile 0 (group 1), tile 1 (group 2); S(0) and P(0).
  load_tile_sw128<D, BM, Cfg::kThreads>(sQ, t.q, t.q_stride, t.rows, tid);
  load_kv_from(t.k, t.v, t.kv_stride, n_first, 0);
  cp_async_commit();
  if (tiles > 1) load_kv_from(t.k, t.v, t.kv_stride, n_first - 1, 1);
  cp_async_commit();
  cp_async_wait<1>();
  hopper::fence_async_shared();
  __syncthreads();
  {
    fence_regs(s_acc);  // (its zeros are defined before the wgmma fence, not sunk past it)
    wgmma_fence();
    issue_s(0);
    wgmma_wait<0>();
    fence_regs(s_acc);
    float alpha[2];
    softmax_tile(n_first, alpha);  // (o is 0: alpha is moot)
    pack_p<T>(s_acc, p_frag);
  }

  // The walk; the last tile's P·V after it (no wgmma is issued under a condition: ptxas serializes
  // wgmma pipelines whose accumulators merge across branches).
  int stage = 0;  // of tile i
  for (int i = 0; i + 1 < tiles; ++i) {
    const int stage1 = stage + 1 == ST ? 0 : stage + 1, stage2 = stage1 + 1 == ST ? 0 : stage1 + 1;
    // Tile i+1 (the only copies in flight) has landed, in every thread's view; and every
    // warpgroup is done with tile i-1 (its last wgmma waited in iteration i-1), whose stage tile
    // i+2 takes.
    cp_async_wait<0>();
    hopper::fence_async_shared();
    __syncthreads();
    if (i + 2 < tiles) load_kv(n_first - i - 2, stage2);
    cp_async_commit();
    // Every register the wgmmas below use is defined before the fence (non-wgmma definitions
    // inside a wgmma pipeline stage make ptxas serialize the wgmmas).
    fence_regs(s_acc);
    fence_regs(o_acc);
    fence_regs(p_frag);
    wgmma_fence();
    issue_s(stage1);
    issue_o(stage);
    wgmma_wait<1>();  // S(i+1) done; P(i)·V(i) may still run
    fence_regs(s_acc);
    float alpha[2];
    softmax_tile(n_first - i - 1, alpha);
    wgmma_wait<0>();
    fence_regs(o_acc);
    fence_regs(p_frag);
    rescale_rows(o_acc, alpha);
    pack_p<T>(s_acc, p_frag);
    stage = stage1;
  }
  fence_regs(o_acc);
  fence_regs(p_frag);
  wgmma_fence();
  issue_o(stage);
  wgmma_wait<0>();
  fence_regs(o_acc);

  // Epilogue: o = acc / l rounded to T, staged in the warpgroup's own rows of Q's buffer (only its
  // own, finished, wgmmas read them) in the same swizzled layout, then 16-byte stores.
  T* const out = epi.o;
  const int64_t out_stride = epi.q_stride;
  const int out_rows = epi.rows;
  stage_o_rows<T, BM>(o_acc, row_sum, row_max, p.scale, smem, wg * 64 + warp * 16 + g, t4, epi.lse, out_rows);
  __syncthreads();
  constexpr int CH = D / 8;
#pragma unroll
  for (int it = 0; it < BM * CH / Cfg::kThreads; ++it) {
    const int idx = tid + it * Cfg::kThreads, r = idx / CH, c = idx % CH;
    if (r < out_rows)
      *reinterpret_cast<uint4*>(out + r * out_stride + c * 8) =
          *reinterpret_cast<const uint4*>(smem + sw128_offset<BM>(r, c));
  }
#else
  __trap();  // built for a device without wgmma: the host never launches it there
#endif
}

// ---- launch --------------------------------------------------------------------------------

template <class T, int D>
const void* wgmma_kernel_d() {
  return reinterpret_cast<const void*>(attention_wgmma_kernel<T, typename WgmmaConfigFor<D>::type>);
}

template <class T, int D>
void launch_wgmma_d(const Params& p, cudaStream_t stream) {
  using Cfg = typename WgmmaConfigFor<D>::type;
  const auto kernel = attention_wgmma_kernel<T, Cfg>;
  OPCERT_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, Cfg::kSmemBytes));
  const dim3 grid = attention_grid(p, Cfg::kBM);
  if (grid.x == 0 || grid.y == 0 || grid.z == 0) return;
  kernel<<<grid, Cfg::kThreads, Cfg::kSmemBytes, stream>>>(p);
  OPCERT_CUDA_CHECK_LAUNCH("attention_wgmma_kernel");
}

/// The kernel for head dim d (null if d is not 64 or 128), for its attributes.
template <class T>
const void* wgmma_kernel_t(int d) {
  return d == 64 ? wgmma_kernel_d<T, 64>() : d == 128 ? wgmma_kernel_d<T, 128>() : nullptr;
}

template <class T>
void launch_wgmma_t(const Params& p, cudaStream_t stream) {
  if (p.d == 64) launch_wgmma_d<T, 64>(p, stream);
  else if (p.d == 128) launch_wgmma_d<T, 128>(p, stream);
}

}  // namespace opcert::cuda::attn
