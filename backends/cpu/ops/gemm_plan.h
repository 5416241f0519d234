// The blocking of the cache-blocked GEMM drivers (gemm_driver.cpp): register tile, cache blocks,
// and the grid of thread rectangles that splits C.
#pragma once

#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <utility>

namespace opcert::cpu {

// Blocking, tuned on Sapphire Rapids at 1024^3 .. 4096^3: a B micro-panel (kc x NR) read from
// L1/L2 by mc / MR register tiles in a row; a wide nc so that A is packed few times.
constexpr int64_t kDepthBlock = 256;        // kc
constexpr int64_t kRowBlockTarget = 144;    // mc: the packed A block (mc x kc) lives in L2
constexpr int64_t kColBlockTarget = 1024;   // nc
constexpr int64_t kRowBand = 4;             // M blocks that share one packed B block
constexpr int64_t kPackedBLimit = int64_t{4} << 20;  // K x nc at most (int8 packs B for the whole K)
constexpr int64_t kWorkPerThread = int64_t{1} << 17;  // multiply-adds below which a thread is not worth it

// Tile rows are padded by one cache line so that a power-of-two width does not put every row
// of a register tile in the same L1 set.
constexpr int64_t kTilePad = 16;

inline int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }
inline int64_t round_up(int64_t a, int64_t b) { return ceil_div(a, b) * b; }

// The blocking of one call: register tile, cache blocks, and the grid of thread rectangles.
struct Plan {
  int64_t mr, nr, kc, mc, nc;
  int64_t grid_m = 1, grid_n = 1;
};

/// The plan of one call for an MR x NR register tile and K blocks of kc.
Plan make_plan(int64_t mr, int64_t nr, int64_t kc, int64_t m, int64_t n, int64_t k);

/// The elements [begin, end) of part `i` of `parts` over `total` elements split in units of `unit`.
std::pair<int64_t, int64_t> part_range(int64_t total, int64_t unit, int64_t parts, int64_t i);

/// The largest block a thread of the plan meets: (rows, columns), in whole register tiles.
std::pair<int64_t, int64_t> block_extent(const Plan& p, int64_t m, int64_t n);

/// Runs body(cell_m, cell_n, thread) for every rectangle of the plan's grid on an OpenMP team.
template <class Body>
void for_each_cell(const Plan& p, Body body) {
  const int64_t cells = p.grid_m * p.grid_n;
  if (cells == 1) {
    body(int64_t{0}, int64_t{0}, 0);
    return;
  }
#pragma omp parallel num_threads(static_cast<int>(cells))
  {
    const int64_t team = omp_get_num_threads();
    for (int64_t cell = omp_get_thread_num(); cell < cells; cell += team)
      body(cell / p.grid_n, cell % p.grid_n, omp_get_thread_num());
  }
}

}  // namespace opcert::cpu
