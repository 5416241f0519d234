// The warp-specialized Hopper attention forward (cuda.attention.warpspec, and with E4m3
// cuda.attention.warpspec_fp8): FlashAttention-3's structure on wgmma, TMA and mbarriers (sm_90a),
// fp16/bf16 at head dims 64 and 128, fp8 e4m3 at 128, BSHD.
//
// A CTA works on one tile of kWG * 64 query rows of one head and one sequence at a time and has
// kWG + 1 warpgroups. Warpgroup 0 is the producer: it gives most of its registers away (setmaxnreg) and
// one of its threads issues TMA bulk tensor copies: Q once, then K and V tiles of kBN keys into a
// ring of kStages shared-memory stages, each guarded by a "full" mbarrier (the copy's bytes
// landed) and an "empty" one (every consumer warp is done reading it). Warpgroups 1..kWG are the
// consumers, 64 query rows each, with the registers the producer gave up. Each runs the online
// softmax with the second product of tile i overlapping the softmax of tile i+1 inside the
// warpgroup (as attention_wgmma_kernel.cuh does), and the consumers take turns at the tensor
// cores through named barriers: a warpgroup issues its two products only after the previous one
// issued its own, so that one's softmax runs while the other's products do (ping-pong). The
// output goes out through shared memory and a TMA store (fp8's bf16 output, twice Q's bytes, from
// registers).
//
// Tiles are kept as D/64 column blocks of [rows][128 bytes] with the 128-byte swizzle, which is
// both what TMA writes with CU_TENSOR_MAP_SWIZZLE_128B and what wgmma's descriptors read. The
// 4-d tensor maps ([B, S, H, D], innermost first) make TMA zero-fill keys past the sequence's end
// and clip the output store at it. Causal and window tiles outside the band are never loaded;
// only the tiles that cross an edge are masked. lse is kept.
//
// CTAs take query tiles in the order of a walk (attention_ws_walk.h). A persistent configuration
// launches one CTA per SM. Each takes tile blockIdx.x of the walk first, then whichever tile is
// next when it asks (a counter in global memory, WsTileQueue), so that the CTAs finish together
// however the tiles' costs differ. The producer asks one tile ahead and hands each tile's index to
// the consumers in shared memory, under the barrier of its Q. It loads the next tile's Q once the
// consumers have done their last S = Q·Kᵀ of the current one (q_empty), the K/V ring runs on from
// tile to tile, and o is staged in its own buffer; a tile's fixed costs then overlap the previous
// one's end. Otherwise the tile loop runs once.
#pragma once

#include <cuda.h>

#include <type_traits>

#include "ops/attention_wgmma_kernel.cuh"
#include "ops/attention_ws_walk.h"
#include "ops/hopper_async.cuh"
#include "ops/wgmma_ss.cuh"

namespace opcert::cuda::attn {

/// The tensor maps of a call: q and o boxes of 64 rows, k and v of kBN rows, each one 128-byte
/// block of columns wide; fp8's v is V transposed (boxes of kBN keys by D rows), and it has no o.
struct WsMaps {
  CUtensorMap q, k, v, o;
};

/// Where a persistent launch's CTAs take their tiles after the first: `taken` counts the requests so
/// far (zero when the launch starts; each CTA's last one overshoots the walk), and the launch zeroes
/// `next`, the next launch's counter.
/// Launches on one stream alternate between two such ints (attention_ws_launch.cuh); null when the
/// configuration is not persistent.
struct WsTileQueue {
  int* taken = nullptr;
  int* next = nullptr;
};

/// The fp8 e4m3 element type of the kernel (codes in bytes; o is bf16, descales apply).
struct E4m3 {};
template <class T>
inline constexpr bool kIsFp8 = std::is_same_v<T, E4m3>;

/// kD head dim, kWG consumer warpgroups (64 query rows each), kStages K/V stages of kBN keys,
/// kElemBytes bytes an element of q, k and v (2, or 1 for fp8).
template <int kD_, int kWG_, int kStages_, int kBN_, int kElemBytes_ = 2, bool kPersistent_ = false>
struct WsConfig {
  static constexpr int kD = kD_, kWG = kWG_, kStages = kStages_, kElemBytes = kElemBytes_;
  // Persistent: one CTA per SM walks tiles; Q of the next tile loads while the last one finishes,
  // so o needs its own buffer (else it is staged in Q's).
  static constexpr bool kPersistent = kPersistent_;
  static constexpr int kBM = 64 * kWG, kBN = kBN_;
  static constexpr int kThreads = 128 * (kWG + 1);
  static constexpr int kRowBytes = kD * kElemBytes;   // one q or k row: kRowBytes / 128 column blocks
  static constexpr int kQBytes = kBM * kRowBytes;     // [blocks][kBM][128 B]
  static constexpr int kTileBytes = kBN * kRowBytes;  // one K or V tile: [blocks][kBN][128 B]
  static constexpr int kOBytes = kPersistent ? kQBytes : 0;
  // + 1024 bytes to align the dynamic buffer to the swizzle pattern (1024 B)
  static constexpr int kSmemBytes = kQBytes + 2 * kStages * kTileBytes + kOBytes + 1024;
  // Registers a thread after the reallocation: the producer keeps few, the consumers' sum with it
  // fits the SM's 64K (24 + 2 * 240, 32 + 3 * 160 warpgroup-thread registers per 128 threads).
  static constexpr int kProducerRegs = kWG == 2 ? 24 : 32;
  static constexpr int kConsumerRegs = kWG == 2 ? 240 : 160;
  static_assert(kRowBytes % 128 == 0 && kD <= 128, "rows must be whole 128-byte blocks, and O must fit the registers");
  static_assert(kWG == 2 || kWG == 3, "the register split is worked out for 2 or 3 consumer warpgroups");
  static_assert(kBN % (32 / kElemBytes) == 0 && kBN <= 256 && (kBN * 128) % 1024 == 0,
                "a key tile is whole wgmma k-steps, one TMA box, and keeps column blocks on the swizzle pattern");
  static_assert(kElemBytes == 2 || (kBN == 128 && kD == 128 && !kPersistent),
                "fp8: a transposed V tile is one 128-byte block of keys per head-dim row (and o leaves from registers)");
};

/// The shapes per head dim (FlashAttention-3's choices for these head dims): D 128 takes 128 query
/// rows in 2 consumers with 176-key tiles (209 KB shared, 2 stages) unless a window masks tiles or
/// a causal mask does on a short sequence (attention_ws_launch.cuh), 128-key tiles then (161 KB);
/// D 64 takes 192 rows in 3
/// consumers (153 KB, 4 stages of 128 keys), or 128 rows in 2 for short sequences, where 192-row
/// tiles leave more of the last tile empty (and, causal, more of the diagonal masked).
using WsD128Wide = WsConfig<128, 2, 2, 176>;
using WsD128 = WsConfig<128, 2, 2, 128>;
using WsD64Tall = WsConfig<64, 3, 4, 128>;
using WsD64 = WsConfig<64, 2, 4, 128>;
/// Persistent forms (one CTA per SM walking tiles; o staged in its own buffer, which leaves no room
/// for 176-key tiles at D 128: 193 KB; 161 KB at D 64; three consumers spill there).
using WsD128Persistent = WsConfig<128, 2, 2, 128, 2, true>;
using WsD64Persistent = WsConfig<64, 2, 4, 128, 2, true>;
/// fp8 e4m3 at D 128: 128 query rows in 2 consumers, 4 stages of 128 keys (145 KB shared); V comes
/// transposed (attention_ws_launch.cuh), so that both products read K-major operands.
using WsD128Fp8 = WsConfig<128, 2, 4, 128, 1>;

/// An fp8 P·V operand: S's accumulator values (fp32, p in [0, 2^8]) rounded to e4m3 as the m64k32
/// A fragments of the second product, one per 32 keys. The accumulator puts keys 8u + 2t4 + {0,1}
/// (u = 0..3) of a row in a thread, the fragment wants 4 consecutive k's: byte j of register r
/// takes key 16(r/2) + 8(j/2) + 2t4 + (j%2), and V's keys are stored in that order (the host's
/// transpose, fp8_v_key), so the sum over keys is unchanged.
template <int NT>
__device__ inline void pack_p_e4m3(const float (&sc)[NT][4], uint32_t (&pa)[NT / 4][4]) {
#pragma unroll
  for (int kk = 0; kk < NT / 4; ++kk)
#pragma unroll
    for (int r = 0; r < 4; ++r) {
      const int u = 4 * kk + 2 * (r / 2), e = 2 * (r % 2);  // 8-key tiles u, u + 1; row g (e 0) or g + 8 (e 2)
      uint16_t lo, hi;
      asm("cvt.rn.satfinite.e4m3x2.f32 %0, %1, %2;\n" : "=h"(lo) : "f"(sc[u][e + 1]), "f"(sc[u][e]));
      asm("cvt.rn.satfinite.e4m3x2.f32 %0, %1, %2;\n" : "=h"(hi) : "f"(sc[u + 1][e + 1]), "f"(sc[u + 1][e]));
      pa[kk][r] = static_cast<uint32_t>(lo) | (static_cast<uint32_t>(hi) << 16);
    }
}

/// The key that k position kA (0..31) of a 32-key fp8 P fragment holds (pack_p_e4m3): V's row for
/// that position. Host and device.
__host__ __device__ constexpr int fp8_v_key(int ka) {
  const int half = ka / 16, t4 = (ka % 16) / 4, j = ka % 4;
  return 16 * half + 8 * (j / 2) + 2 * t4 + (j % 2);
}

/// Fills in tile `cta` of walk w (attention_ws_walk.h); returns its batch entry.
template <class T, int D>
__device__ inline int ws_tile(const Params& p, const WsWalk& w, int cta, int bm, CtaTile<T>& t) {
  const WsTileIndex i = ws_tile_index(w, cta);
  const int b = i.head / p.hq;
  t.s = bshd_seq(p, b);
  fill_tile<T, D>(p, bm, i.m_block, i.head % p.hq, t);
  return b;
}

template <class T, class Cfg>
__global__ void __launch_bounds__(Cfg::kThreads, 1)
    attention_ws_kernel(const __grid_constant__ WsMaps maps, const Params p, const WsWalk walk,
                        const WsTileQueue queue) {
#if OPCERT_WGMMA_OK
  using namespace hopper;
  constexpr int D = Cfg::kD, BM = Cfg::kBM, BN = Cfg::kBN, ST = Cfg::kStages, WG = Cfg::kWG;
  constexpr int NT = BN / 8, DT = D / 8;
  constexpr bool F8 = kIsFp8<T>;
  // 128-byte column blocks of a q/k row, elements in one (a TMA box's width), k-steps of S = Q·Kᵀ
  // (32 bytes each), P fragments (fp8: 32 keys each, else 16).
  constexpr int CB = Cfg::kRowBytes / 128, kBoxCols = 128 / Cfg::kElemBytes, KS = Cfg::kRowBytes / 32;
  constexpr int PK = F8 ? NT / 4 : NT / 2;
  using OutT = std::conditional_t<F8, __nv_bfloat16, T>;  // o's type
  constexpr uint32_t kTileBytes = Cfg::kTileBytes;
  extern __shared__ unsigned char smem_raw[];
  // q_full, q_empty; then per stage k_full, v_full, k_empty, v_empty
  __shared__ alignas(8) uint64_t bars[2 + 4 * ST];
  __shared__ int next_tile;  // persistent: the producer's tile for the consumers, written under q_full
  const uint32_t raw_addr = smem_addr(smem_raw);
  const uint32_t base = (raw_addr + 1023u) & ~1023u;
  unsigned char* const smem = smem_raw + (base - raw_addr);
  const uint32_t sQ = base;
  auto sK = [&](int s) { return base + Cfg::kQBytes + static_cast<uint32_t>(s) * kTileBytes; };
  auto sV = [&](int s) { return base + Cfg::kQBytes + static_cast<uint32_t>(ST + s) * kTileBytes; };
  // o's staging: its own buffer when persistent (the next Q may be loading), else Q's.
  const uint32_t o_offset = Cfg::kPersistent ? Cfg::kQBytes + 2u * ST * kTileBytes : 0u;
  const uint32_t bar0 = smem_addr(bars);
  const uint32_t q_full = bar0, q_empty = bar0 + 8u;
  auto k_full = [&](int s) { return bar0 + 8u * static_cast<uint32_t>(2 + s); };
  auto v_full = [&](int s) { return bar0 + 8u * static_cast<uint32_t>(2 + ST + s); };
  auto k_empty = [&](int s) { return bar0 + 8u * static_cast<uint32_t>(2 + 2 * ST + s); };
  auto v_empty = [&](int s) { return bar0 + 8u * static_cast<uint32_t>(2 + 3 * ST + s); };
  // The CTA's tiles: blockIdx.x, then (persistent) gridDim.x plus what the queue's counter hands out.
  const int total = walk.tiles();
  // Key tiles [n_min, n_first] of a tile, visited from the last: tile i of the walk is key tile n_first - i.
  auto key_tiles = [&](const CtaTile<OutT>& t, int& n_first) {
    n_first = (t.key_hi + BN - 1) / BN - 1;
    return n_first - t.key_lo / BN + 1;
  };

  const int tid = threadIdx.x;
  if (tid == 0) {
    mbar_init(q_full, 1);
    mbar_init(q_empty, WG * 4);  // one arrival per consumer warp
    for (int s = 0; s < ST; ++s) {
      mbar_init(k_full(s), 1);
      mbar_init(v_full(s), 1);
      mbar_init(k_empty(s), WG * 4);
      mbar_init(v_empty(s), WG * 4);
    }
    mbar_fence_init();
  }
  __syncthreads();

  const int wg = tid / 128;
  if (wg == 0) {
    // ---- producer ----
    setmaxnreg_dec<Cfg::kProducerRegs>();
    if (tid == 0) {
      tma_prefetch_map(&maps.q);
      tma_prefetch_map(&maps.k);
      tma_prefetch_map(&maps.v);
      if (Cfg::kPersistent && blockIdx.x == 0) *queue.next = 0;  // (the last launch on the stream is done)
      auto next_from_queue = [&] { return static_cast<int>(gridDim.x) + atomicAdd(queue.taken, 1); };
      int ring = 0, loaded = 0;  // K/V tiles loaded, and tiles handed over under q_full (the barriers' phases)
      for (int cta = blockIdx.x;;) {
        CtaTile<OutT> t;
        const int batch = cta < total ? ws_tile<OutT, D>(p, walk, cta, BM, t) : 0;
        const bool has_keys = cta < total && t.key_hi > t.key_lo;
        // The tile goes to the consumers under q_full: every tile, and past the last one the end.
        mbar_wait(q_empty, (loaded & 1) ^ 1);  // the last tile's final S = Q·Kᵀ is done (and its index read)
        ++loaded;
        if constexpr (Cfg::kPersistent) next_tile = cta;
        if (!has_keys) {  // the end, or a tile the consumers write without keys
          mbar_arrive(q_full);
          if (!Cfg::kPersistent || cta >= total) break;
          cta = next_from_queue();
          continue;
        }
        const int kvh = t.h / p.group;
        int n_first;
        const int tiles = key_tiles(t, n_first);
        mbar_arrive_expect_tx(q_full, Cfg::kQBytes);
#pragma unroll
        for (int c = 0; c < WG; ++c)
#pragma unroll
          for (int cb = 0; cb < CB; ++cb)
            tma_load_4d(sQ + static_cast<uint32_t>(cb * BM * 128 + c * 64 * 128), &maps.q, q_full, cb * kBoxCols, t.h,
                        t.m0 + c * 64, batch);
        for (int i = 0; i < tiles; ++i, ++ring) {
          const int s = ring % ST;
          const uint32_t phase = (ring / ST) & 1;
          const int key0 = (n_first - i) * BN;
          mbar_wait(k_empty(s), phase ^ 1);
          mbar_arrive_expect_tx(k_full(s), kTileBytes);
#pragma unroll
          for (int cb = 0; cb < CB; ++cb)
            tma_load_4d(sK(s) + static_cast<uint32_t>(cb * BN * 128), &maps.k, k_full(s), cb * kBoxCols, kvh, key0,
                        batch);
          mbar_wait(v_empty(s), phase ^ 1);
          mbar_arrive_expect_tx(v_full(s), kTileBytes);
          if constexpr (F8) {  // Vᵀ [B, Hkv, D, keys]: the tile's D rows of kBN keys, one box
            tma_load_4d(sV(s), &maps.v, v_full(s), key0, 0, kvh, batch);
          } else {
#pragma unroll
            for (int cb = 0; cb < CB; ++cb)
              tma_load_4d(sV(s) + static_cast<uint32_t>(cb * BN * 128), &maps.v, v_full(s), cb * 64, kvh, key0, batch);
          }
        }
        if constexpr (!Cfg::kPersistent) break;  // (one tile: the loop state folds away)
        // The next tile, asked for once this one's loads are issued, while the consumers are still
        // stages behind.
        cta = next_from_queue();
      }
    }
    return;
  }

  // ---- consumers ----
  setmaxnreg_inc<Cfg::kConsumerRegs>();
  const int cw = wg - 1, ctid = tid % 128, warp = ctid / 32, lane = tid % 32;
  const int g = lane / 4, t4 = lane % 4;
  // Turns at the tensor cores: consumer cw waits at barrier 1 + cw for the one before it, and
  // then lets the next one go; the last one lets the first go at the start. Every consumer takes
  // the same number of turns a tile, so the order holds from tile to tile.
  auto turn_wait = [&] { named_sync(1 + cw, 256); };
  auto turn_pass = [&] { named_arrive(1 + (cw + 1) % WG, 256); };
  if (cw == WG - 1) turn_pass();

  // Descriptors as in attention_wgmma_kernel.cuh: Q and K K-major (8-row groups 1024 B apart; a
  // k-step of 16 is 32 bytes into the swizzled row, steps 4..7 in the next column block); V
  // N-major (a k-step is 16 keys = 2 row groups; column blocks kBN * 128 B apart).
  auto q_desc = [&](int kk) {
    return sw128_desc(sQ + (kk / 4) * BM * 128 + cw * 64 * 128 + (kk % 4) * 32, 16, 1024);
  };
  auto k_desc = [&](int s, int kk) { return sw128_desc(sK(s) + (kk / 4) * BN * 128 + (kk % 4) * 32, 16, 1024); };
  // fp8: Vᵀ K-major ([D rows][kBN keys], one 128-byte block: a k-step of 32 keys is 32 bytes).
  auto v_desc = [&](int s, int kk) {
    if constexpr (F8) return sw128_desc(sV(s) + kk * 32, 16, 1024);
    else return sw128_desc(sV(s) + kk * 16 * 128, BN * 128, 1024);
  };
  auto release = [&](uint32_t bar) {
    if (lane == 0) mbar_arrive(bar);
  };

  float s_acc[NT][4];
  float o_acc[DT][4];
  uint32_t p_frag[PK][4];
  int ring = 0, loaded = 0;  // as the producer counts them
  for (int cta = blockIdx.x;;) {
    if constexpr (Cfg::kPersistent) {  // the producer's tile, or past the last one
      mbar_wait(q_full, loaded & 1);
      ++loaded;
      cta = next_tile;
      if (cta >= total) break;
    }
    CtaTile<OutT> t;  // (its q, k, v pointers go unused: TMA reads them through the maps)
    const int batch = ws_tile<OutT, D>(p, walk, cta, BM, t);
    if (t.key_hi <= t.key_lo) {  // no query of the tile sees a key
      write_empty_tile<OutT, D>(t, tid - 128, Cfg::kThreads - 128);
      if constexpr (!Cfg::kPersistent) break;
      __syncwarp();  // (every lane has read next_tile)
      release(q_empty);
      continue;
    }
    const int kvh = t.h / p.group;
    int n_first;
    const int tiles = key_tiles(t, n_first);
    const int skv = t.s.skv;
    float row_max[2] = {-INFINITY, -INFINITY}, row_sum[2] = {0.0f, 0.0f};
    zero_fragments(s_acc);
    zero_fragments(o_acc);
    // fp8: the scores carry the q and k descales of the tile's KV head; p is shifted into [0, 2^8].
    // A positive descale product folds into the exponent's scale; any other (0 for an all-zero
    // block, negative, NaN) multiplies the scores themselves (fold_scores), so that the running max
    // is still a max and masked scores stay -inf (-inf · 0 would be NaN).
    float score_scale = 1.0f;
    if constexpr (F8) {
      const int di = batch * p.hkv + kvh;
      score_scale = (p.q_descale != nullptr ? p.q_descale[di] : 1.0f) * (p.k_descale != nullptr ? p.k_descale[di] : 1.0f);
    }
    const bool fold_scores = F8 && !(score_scale > 0.0f);
    const float exponent_scale = fold_scores ? 1.0f : score_scale;  // what sl2 and lse's scale carry
    const float sl2 = p.scale_log2 * exponent_scale;
    constexpr float kPLog2 = F8 ? 8.0f : 0.0f;
    const int i0 = t.m0 + cw * 64 + warp * 16 + g;  // the thread's first query row in the sequence

    auto issue_s = [&](int s) {
#pragma unroll
      for (int kk = 0; kk < KS; ++kk) {
        if constexpr (F8) wgmma_ss_e4m3<BN>(s_acc, q_desc(kk), k_desc(s, kk), kk > 0);
        else wgmma_ss<T, BN>(s_acc, q_desc(kk), k_desc(s, kk), kk > 0);
      }
      wgmma_commit();
    };
    auto issue_o = [&](int s) {
#pragma unroll
      for (int kk = 0; kk < PK; ++kk) {
        if constexpr (F8) wgmma_rs_e4m3<D>(o_acc, p_frag[kk], v_desc(s, kk));
        else wgmma_rs_m64k16<T, D>(o_acc, p_frag[kk], v_desc(s, kk));
      }
      wgmma_commit();
    };
    auto softmax_tile = [&](int n, float (&alpha)[2]) {
      const int n0 = n * BN;
      if (fold_scores) {
#pragma unroll
        for (int nt = 0; nt < NT; ++nt)
#pragma unroll
          for (int e = 0; e < 4; ++e) s_acc[nt][e] *= score_scale;
      }
      if (tile_needs_mask(p, n0, BN, t.m0, BM, skv, t.offset)) mask_rows(s_acc, p, i0, n0, skv, t.offset, t4);
      softmax_rows(s_acc, row_max, row_sum, sl2, alpha, kPLog2);
    };
    auto pack_tile = [](const float(&sc)[NT][4], uint32_t(&pa)[PK][4]) {
      if constexpr (F8) pack_p_e4m3(sc, pa);
      else pack_p<T>(sc, pa);
    };
    auto stage = [&](int i) { return (ring + i) % ST; };
    auto phase = [&](int i) { return static_cast<uint32_t>(((ring + i) / ST) & 1); };

    // The first tile: S(0), P(0).
    if constexpr (!Cfg::kPersistent) {
      mbar_wait(q_full, loaded & 1);
      ++loaded;
    }
    mbar_wait(k_full(stage(0)), phase(0));
    fence_regs(s_acc);
    turn_wait();
    wgmma_fence();
    issue_s(stage(0));
    turn_pass();
    wgmma_wait<0>();
    fence_regs(s_acc);
    release(k_empty(stage(0)));
    if (Cfg::kPersistent && tiles == 1) release(q_empty);  // this tile's last use of Q
    {
      float alpha[2];
      softmax_tile(n_first, alpha);  // (o is 0: alpha is moot)
      pack_tile(s_acc, p_frag);
    }

    // The walk: S(i+1) and P(i)·V(i) issued together, S(i+1)'s softmax under P(i)·V(i). No wgmma
    // is issued under a condition (ptxas would serialize the pipelines).
    for (int i = 0; i + 1 < tiles; ++i) {
      const int s0 = stage(i), s1 = stage(i + 1);
      // (both waits before the turn: a wait loop between the two issues makes ptxas fence them)
      mbar_wait(k_full(s1), phase(i + 1));
      mbar_wait(v_full(s0), phase(i));
      fence_regs(s_acc);
      fence_regs(o_acc);
      fence_regs(p_frag);
      turn_wait();
      wgmma_fence();
      issue_s(s1);
      issue_o(s0);
      turn_pass();
      wgmma_wait<1>();  // S(i+1) done; P(i)·V(i) may still run
      fence_regs(s_acc);
      release(k_empty(s1));
      if (Cfg::kPersistent && i + 2 == tiles) release(q_empty);  // the tile's last S: Q may be replaced
      float alpha[2];
      softmax_tile(n_first - i - 1, alpha);
      wgmma_wait<0>();
      fence_regs(o_acc);
      fence_regs(p_frag);
      release(v_empty(s0));
      rescale_rows(o_acc, alpha);
      pack_tile(s_acc, p_frag);
    }
    {
      const int sl = stage(tiles - 1);
      mbar_wait(v_full(sl), phase(tiles - 1));
      fence_regs(o_acc);
      fence_regs(p_frag);
      wgmma_fence();
      issue_o(sl);
      wgmma_wait<0>();
      fence_regs(o_acc);
      if constexpr (Cfg::kPersistent) release(v_empty(sl));  // (the ring goes on to the next tile)
    }
    ring += tiles;

    if constexpr (F8) {
      // Epilogue (fp8): o = acc / l · v_descale rounded to bf16, stored from registers (Q's buffer
      // holds half a bf16 tile); lse in the scores' units, less the 2^8 shift of p.
      const int di = batch * p.hkv + kvh;
      const float vd = p.v_descale != nullptr ? p.v_descale[di] : 1.0f;
#pragma unroll
      for (int r = 0; r < 2; ++r) {
        const RowFinish f = finish_row(row_sum[r], row_max[r], p.scale * exponent_scale);
        const int row = cw * 64 + warp * 16 + g + 8 * r;  // in the tile
        if (row >= t.rows) continue;
        OutT* const out = t.o + row * t.q_stride + 2 * t4;
#pragma unroll
        for (int dt = 0; dt < DT; ++dt) {
          const float o0 = f.no_key ? 0.0f : o_acc[dt][2 * r] * f.inv * vd;
          const float o1 = f.no_key ? 0.0f : o_acc[dt][2 * r + 1] * f.inv * vd;
          *reinterpret_cast<uint32_t*>(out + dt * 8) = pack2<OutT>(o0, o1);
        }
        if (t.lse != nullptr && t4 == 0) t.lse[row] = f.no_key ? f.lse : f.lse - kPLog2 * 0.69314718055994531f;
      }
    } else {
      // Epilogue: o = acc / l rounded to T into this warpgroup's own rows of o's staging buffer
      // (not persistent: Q's, which only its own, finished, wgmmas read), in the swizzled layout
      // the TMA store reads, once the warpgroup's last store has read them; lse from registers.
      if constexpr (Cfg::kPersistent) {
        if (ctid == 0) tma_store_wait_read();
        named_sync(1 + WG + cw, 128);
      }
      stage_o_rows<T, BM>(o_acc, row_sum, row_max, p.scale, smem + o_offset, cw * 64 + warp * 16 + g, t4, t.lse,
                          t.rows);
      fence_async_shared();
      named_sync(1 + WG + cw, 128);
      if (ctid == 0) {
#pragma unroll
        for (int cb = 0; cb < CB; ++cb)
          tma_store_4d(&maps.o, sQ + o_offset + static_cast<uint32_t>(cb * BM * 128 + cw * 64 * 128), cb * 64, t.h,
                       t.m0 + cw * 64, batch);
        tma_store_commit();
      }
    }
    if constexpr (!Cfg::kPersistent) break;  // (one tile: the loop state folds away)
  }
  if (!F8 && ctid == 0) tma_store_wait_read();  // the stores have read o before the CTA's memory goes
#else
  __trap();  // built for a device without wgmma: the host never launches it there
#endif
}

}  // namespace opcert::cuda::attn
