// The cache-blocked, OpenMP-parallel GEMM drivers shared by gemm, gemm_fp8 and gemm_int8.
//
// C[M, N] = A[M, K] · B[N, K]ᵀ is computed tile by tile into a per-thread accumulator (fp32 or
// int32); when a tile's whole K is done, the caller's epilogue turns it into the output (scales,
// bias, one rounding). Threads own disjoint rectangles of C; within one, GotoBLAS loops.
// fp32: N blocks, bands of a few M blocks, K blocks (B block packed once per band), M blocks
// (A packed), register tiles. int8: N blocks (B packed for the whole K), M blocks, K blocks.
// GEMMs of at most kSmallM rows take dot-product paths without packing (gemm_small_m.cpp).
// Operands that bf16 holds exactly (bf16, fp8) run on the AVX512-BF16 pair kernel where the CPU
// has it, in K pairs, unless their magnitudes could meet its flushes (gemm_pack_pairs.h): then
// the fp32 kernel computes the call, the tiles already finished being written again.
#pragma once

#include <cstdint>
#include <functional>

#include "ops/gemm_kernels.h"
#include "ops/gemm_pack.h"

namespace opcert::cpu {

/// Called per finished tile, from any thread, for rows [m0, m0 + mc) and columns [n0, n0 + nc):
/// element (i, j) of the tile is acc[i * ld + j]. A tile may be handed over again (the fallback
/// from the pair kernel): an epilogue writes its output, never accumulates into it.
template <class Acc>
using TileEpilogue = std::function<void(int64_t m0, int64_t n0, int64_t mc, int64_t nc, const Acc* acc, int64_t ld)>;

/// DeepSeek-style block scales: K block j of row m is scaled by a[m * a_ld + j], of column n by
/// b[(n / block) * b_ld + j]; each K block is accumulated on its own, then scaled and added.
struct BlockScales {
  const float* a = nullptr;
  int64_t a_ld = 0;
  const float* b = nullptr;
  int64_t b_ld = 0;
  int64_t block = 128;
};

struct F32Gemm {
  MatrixView a;  // [M, K]
  MatrixView b;  // [N, K]
  int64_t m = 0, n = 0, k = 0;
  const BlockScales* block_scales = nullptr;  // optional
  TileEpilogue<float> epilogue;
};

/// Runs the fp32-accumulating GEMM with the kernels of `isa`. K = 0 gives zero tiles.
void run_f32_gemm(const F32Gemm& g, Isa isa);

/// The blocked GEMM of operands pairs_hold() accepts on the pair kernel (gemm_pair_driver.cpp),
/// K > 0. Returns false, having stopped early, when the operands' magnitudes could meet the
/// kernel's flushes (pair_products_exact): then the fp32 kernel must compute the call.
bool run_pair_gemm(const F32Gemm& g, const PairKernel& kernel);

struct I8Gemm {
  const int8_t* a = nullptr;  // [M, K] row-major
  const int8_t* b = nullptr;  // [N, K] row-major
  int64_t m = 0, n = 0, k = 0;
  TileEpilogue<int32_t> epilogue;  // acc is the exact sum (wrapping modulo 2^32)
};

/// Runs the int8 GEMM with int32 accumulation, exact, with the kernels of `isa`.
void run_i8_gemm(const I8Gemm& g, Isa isa);

/// GEMMs with at most this many rows (decode) skip packing: each B row (or, for B as [K, N],
/// each run of a K row) is read once and met by every row of A (gemm_small_m.cpp).
constexpr int64_t kSmallM = 8;
void run_f32_gemm_small_m(const F32Gemm& g, Isa isa);
void run_i8_gemm_small_m(const I8Gemm& g, Isa isa);

}  // namespace opcert::cpu
