// Row-wise kernels (norms, softmax, per-token quantize) keep a whole row in registers: a row
// belongs to a group of NT threads, a warp (NT = 32: short rows, four rows per 128-thread block)
// or a block of NT threads (long rows). Each thread holds C accesses of W elements, thread `rank`
// owning accesses rank, rank + NT, ..., rank + (C-1)·NT: every warp's accesses are coalesced and,
// NT being a compile-time constant, every offset is an immediate of the load. Rows too long for
// registers are streamed (re-read) instead. This header has the device-side group (which rows a
// thread visits, reductions) and the host-side plan (which instantiation a row length takes).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "ops/vector_io.cuh"

namespace opcert::cuda::rows {

/// Warp groups run four to a block of this many threads.
inline constexpr int kWarpBlockThreads = 128;
/// Block size of the streaming kernels (rows longer than the register plans take).
inline constexpr int kStreamThreads = 512;

/// Threads of a block of groups of NT.
__host__ __device__ constexpr int block_threads(int nt) { return nt == 32 ? kWarpBlockThreads : nt; }
/// __launch_bounds__' minimum of resident blocks, which caps registers: 768 threads a SM (85
/// registers a thread) for up to two accesses a thread, 512 (128 registers) for four, enough
/// for this row and the next in registers without spilling. Measured on an H100 (bf16 rows of
/// 4096 and 8192): faster than 1024 threads with spills or with half the accesses a thread.
__host__ __device__ constexpr int min_blocks(int nt, int c) {
  const int threads = c <= 2 ? 768 : 512;
  return threads / block_threads(nt) > 0 ? threads / block_threads(nt) : 1;
}

/// Whether a row kernel loads the next row while this one reduces (a second copy of the row's
/// registers): up to four 16-byte accesses a thread, which min_blocks leaves registers for.
template <class T, int W, int C>
inline constexpr bool kPrefetch = C * W * sizeof(T) <= 64;

struct Sum {
  static constexpr float kIdentity = 0.0f;
  __device__ __forceinline__ float operator()(float a, float b) const { return a + b; }
};
/// fmaxf ignores a NaN operand: callers map NaN to what it must mean first.
struct Max {
  static constexpr float kIdentity = -__builtin_huge_valf();
  __device__ __forceinline__ float operator()(float a, float b) const { return fmaxf(a, b); }
};

/// Butterfly reduction: every lane ends with the same bits (each step combines the same pair,
/// and the ops are commutative).
template <class Op>
__device__ __forceinline__ float warp_reduce(float v, Op op) {
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1) v = op(v, __shfl_xor_sync(0xffffffffu, v, offset));
  return v;
}

/// The NT threads that own one row at a time, and the rows they visit.
template <int NT>
struct Group {
  static constexpr bool kWarp = NT == 32;
  static constexpr int kWarps = NT / 32;
  int rank;            // this thread's index within the row's group
  int64_t first_row;   // the group's first row
  int64_t row_stride;  // rows between the group's visits
  int parity = 0;      // which half of the reduction buffer the next block reduction uses

  __device__ __forceinline__ Group() {
    if constexpr (kWarp) {
      constexpr int kRowsPerBlock = kWarpBlockThreads / 32;
      rank = static_cast<int>(threadIdx.x) & 31;
      first_row = int64_t{blockIdx.x} * kRowsPerBlock + threadIdx.x / 32;
      row_stride = int64_t{gridDim.x} * kRowsPerBlock;
    } else {
      rank = static_cast<int>(threadIdx.x);
      first_row = blockIdx.x;
      row_stride = gridDim.x;
    }
  }

  /// The reduction of v over the group, returned to every thread with the same bits. Block mode
  /// takes one barrier: warp partials go to alternating halves of smem (2 x 32 values), so a
  /// call's writes never meet the previous call's reads (those finish before the barrier of the
  /// call in between). Every thread of the block must call it.
  template <class Op>
  __device__ __forceinline__ float reduce(float v, Op op, float* smem) {
    v = warp_reduce(v, op);
    if constexpr (!kWarp) {
      float* buf = smem + parity * 32;
      parity ^= 1;
      const int lane = rank & 31;
      if (lane == 0) buf[rank / 32] = v;
      __syncthreads();
      v = lane < kWarps ? buf[lane] : Op::kIdentity;
      v = warp_reduce(v, op);
    }
    return v;
  }
};

/// Which instantiation takes rows of h elements. `vec`: 16-byte accesses (the caller checked that
/// h fills whole 16-byte accesses and that every row pointer is aligned); else one element each.
struct Plan {
  bool vec = false;
  int chunks = 0;   // C; 0: the row does not fit in registers, stream it
  int group = 0;    // NT
  int threads = 0;  // block size
};

/// Vector accesses (W elements): C = 1 or 2 in a warp (up to 32·W or 64·W elements), then
/// C = 2 in blocks of 64..256 threads (up to 512·W: 4096 bf16, 2048 fp32), then C = 4 in blocks
/// of 256 or 512 (up to 2048·W: 16384 bf16, 8192 fp32). One element per access: C = 1 or 4 in
/// a warp, else C = 8 in blocks of 64..1024 (up to 8192). Blocks of 256 measured best on an H100.
inline Plan plan(int64_t h, int vec_width, bool vec) {
  Plan p;
  p.vec = vec;
  const int64_t accesses = vec ? (h + vec_width - 1) / vec_width : h;
  auto fits = [&](int c, int nt) { return int64_t{c} * nt >= accesses; };
  auto pick = [&](int c, int nt) {
    p.chunks = c;
    p.group = nt;
  };
  if (vec) {
    if (fits(1, 32)) pick(1, 32);
    else if (fits(2, 32)) pick(2, 32);
    else if (fits(2, 64)) pick(2, 64);
    else if (fits(2, 128)) pick(2, 128);
    else if (fits(2, 256)) pick(2, 256);
    else if (fits(4, 256)) pick(4, 256);
    else if (fits(4, 512)) pick(4, 512);
  } else {
    if (fits(1, 32)) pick(1, 32);
    else if (fits(4, 32)) pick(4, 32);
    else
      for (int nt = 64; nt <= 1024 && p.chunks == 0; nt *= 2)
        if (fits(8, nt)) pick(8, nt);
  }
  p.threads = p.chunks == 0 ? kStreamThreads : block_threads(p.group);
  return p;
}

/// Calls f.template operator()<W, C, NT>() for the register plan p (p.chunks != 0), W the access
/// width in elements of T: the same instantiations for every row kernel.
template <class T, class F>
void with_plan(const Plan& p, F&& f) {
  constexpr int V = vio::kVec<T>;
  const int c = p.chunks;
  if (p.vec) {
    if (c == 1) f.template operator()<V, 1, 32>();
    else if (c == 2 && p.group == 32) f.template operator()<V, 2, 32>();
    else if (c == 2 && p.group == 64) f.template operator()<V, 2, 64>();
    else if (c == 2 && p.group == 128) f.template operator()<V, 2, 128>();
    else if (c == 2) f.template operator()<V, 2, 256>();
    else if (p.group == 256) f.template operator()<V, 4, 256>();
    else f.template operator()<V, 4, 512>();
  } else {
    if (c == 1) f.template operator()<1, 1, 32>();
    else if (p.group == 32) f.template operator()<1, 4, 32>();
    else if (p.group == 64) f.template operator()<1, 8, 64>();
    else if (p.group == 128) f.template operator()<1, 8, 128>();
    else if (p.group == 256) f.template operator()<1, 8, 256>();
    else if (p.group == 512) f.template operator()<1, 8, 512>();
    else f.template operator()<1, 8, 1024>();
  }
}

}  // namespace opcert::cuda::rows
