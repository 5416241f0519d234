// GEMMs with few rows (M <= kSmallM, LLM decode): memory-bound, so B is streamed once, without
// packing, and each B element meets every row of A while it is in L1. B as [N, K]: dot products
// of B rows with A rows (the kernel's dot_rows). B as [K, N]: each K row of B is added, scaled by
// a[m, k], into a run of accumulators. fp32 accumulation; block scales per K block as in the
// blocked driver (each block summed alone, scaled, added). bf16 A and B as [N, K] take the pair
// kernel's dot products where the CPU has them.
#include <omp.h>
#include <opcert/backend_abi.h>

#include <algorithm>
#include <vector>

#include "ops/gemm_driver.h"
#include "ops/gemm_pack_pairs.h"

namespace opcert::cpu {
namespace {

constexpr int64_t kDotColumns = 64;     // columns per task and per epilogue call (B as [N, K])
constexpr int64_t kAxpyColumns = 256;   // columns per task (B as [K, N])
constexpr int64_t kWorkPerThread = int64_t{1} << 17;

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

// The scale of K block j for row m, column n (1 without block scales).
float block_scale(const BlockScales* s, int64_t m, int64_t n, int64_t j) {
  return s == nullptr ? 1.0f : s->a[m * s->a_ld + j] * s->b[(n / s->block) * s->b_ld + j];
}

// Column `col` of C, every row of A, into column c of a tile of kDotColumns: dot products of
// B's row `col` (decoded into b32 unless it is fp32) with the rows of A.
void f32_column(const F32Gemm& g, const F32Kernel& kernel, const std::vector<float>& a32, int64_t col, float* b32,
                float* tile, int64_t c) {
  const int64_t m = g.m, k = g.k;
  const int64_t block = g.block_scales != nullptr ? g.block_scales->block : k;
  const int64_t blocks = ceil_div(k, block);
  const float* b_row = static_cast<const float*>(g.b.data) + col * g.b.row_stride;
  if (g.b.dtype != OPCERT_DTYPE_F32) {
    decode_f32_strided(g.b, col * g.b.row_stride, 1, k, b32);
    b_row = b32;
  }
  for (int64_t j = 0; j < blocks; ++j) {
    const int64_t k0 = j * block, len = std::min(block, k - k0);
    for (int64_t r0 = 0; r0 < m; r0 += kDotRowsMax) {
      const int64_t rows = std::min(kDotRowsMax, m - r0);
      float part[kDotRowsMax];
      kernel.dot_rows(a32.data() + r0 * k + k0, k, rows, b_row + k0, len, part);
      for (int64_t r = 0; r < rows; ++r) {
        float& acc = tile[(r0 + r) * kDotColumns + c];
        const float scaled = g.block_scales != nullptr ? block_scale(g.block_scales, r0 + r, col, j) * part[r] : part[r];
        acc = j == 0 ? scaled : acc + scaled;
      }
    }
  }
}

// Each thread's scratch of the dot paths: a decoded B row and a tile of kSmallM x kDotColumns.
struct DotScratch {
  std::vector<std::vector<float>> b_rows, tiles;
  explicit DotScratch(int64_t k)
      : b_rows(static_cast<std::size_t>(omp_get_max_threads()), std::vector<float>(static_cast<std::size_t>(k))),
        tiles(b_rows.size(), std::vector<float>(static_cast<std::size_t>(kSmallM * kDotColumns))) {}
};

// B as [N, K]: for each column n, dot products of B's row n with every row of A.
// The dot-product paths' loop over runs of kDotColumns columns, in parallel: column(n, b_row, tile,
// c) fills column c of the run's tile (b_row: the thread's scratch row), then the epilogue.
template <class Column>
void for_each_dot_run(const F32Gemm& g, Column&& column) {
  DotScratch buffers(g.k);
  const int64_t tasks = ceil_div(g.n, kDotColumns);
#pragma omp parallel for schedule(static) if (g.m * g.n * g.k > kWorkPerThread)
  for (int64_t task = 0; task < tasks; ++task) {
    const auto t = static_cast<std::size_t>(omp_get_thread_num());
    float* tile = buffers.tiles[t].data();
    const int64_t n0 = task * kDotColumns, width = std::min(kDotColumns, g.n - n0);
    for (int64_t c = 0; c < width; ++c) column(n0 + c, buffers.b_rows[t].data(), tile, c);
    g.epilogue(0, n0, g.m, width, tile, kDotColumns);
  }
}

void small_m_dot(const F32Gemm& g, const F32Kernel& kernel, const std::vector<float>& a32) {
  for_each_dot_run(g, [&](int64_t n, float* b_row, float* tile, int64_t c) { f32_column(g, kernel, a32, n, b_row, tile, c); });
}

// A and B bf16, B as [N, K]: both operands are already K pairs as vdpbf16ps reads them, so the
// pair kernel's dot products run on them in place. A column whose B row could meet the
// instruction's flushes (pair_products_exact) is computed again in fp32.
void small_m_pair_dot(const F32Gemm& g, const PairKernel& pairs, const F32Kernel& kernel, const std::vector<float>& a32) {
  const auto* a = static_cast<const uint16_t*>(g.a.data);
  const auto* b = static_cast<const uint16_t*>(g.b.data);
  const int64_t lda = g.a.row_stride;
  uint16_t least_a = 0;
  for (int64_t r = 0; r < g.m; ++r) least_a = least_nonzero(least_a, least_bf16_magnitude(a + r * lda, g.k));
  for_each_dot_run(g, [&](int64_t n, float* scratch_row, float* tile, int64_t c) {
    const uint16_t* b_row = b + n * g.b.row_stride;
    bool exact = true;
    for (int64_t r0 = 0; r0 < g.m && exact; r0 += kDotRowsMax) {
      const int64_t rows = std::min(kDotRowsMax, g.m - r0);
      float part[kDotRowsMax];
      exact = pair_products_exact(least_a, pairs.dot_rows(a + r0 * lda, lda, rows, b_row, g.k, part));
      for (int64_t r = 0; r < rows; ++r) tile[(r0 + r) * kDotColumns + c] = part[r];
    }
    if (!exact) f32_column(g, kernel, a32, n, scratch_row, tile, c);
  });
}

// B as [K, N]: for a run of columns, acc[r, :] += a[r, k] * B[k, run] over k.
void small_m_axpy(const F32Gemm& g, const std::vector<float>& a32) {
  const int64_t m = g.m, n = g.n, k = g.k;
  const int64_t block = g.block_scales != nullptr ? g.block_scales->block : k;
  const int threads = omp_get_max_threads();
  // Per thread: the decoded B run, the block's partial sums, the tile.
  std::vector<std::vector<float>> scratch(static_cast<std::size_t>(threads));
  for (auto& s : scratch) s.resize(static_cast<std::size_t>(kAxpyColumns * (1 + 2 * kSmallM)));
  const int64_t tasks = ceil_div(n, kAxpyColumns);
#pragma omp parallel for schedule(static) if (m * n * k > kWorkPerThread)
  for (int64_t task = 0; task < tasks; ++task) {
    float* run = scratch[omp_get_thread_num()].data();
    float* part = run + kAxpyColumns;
    float* tile = part + kSmallM * kAxpyColumns;
    const int64_t n0 = task * kAxpyColumns, width = std::min(kAxpyColumns, n - n0);
    for (int64_t k0 = 0, j = 0; k0 < k; k0 += block, ++j) {
      std::fill(part, part + m * kAxpyColumns, 0.0f);
      for (int64_t d = k0; d < std::min(k, k0 + block); ++d) {
        decode_f32_strided(g.b, d * g.b.k_stride + n0 * g.b.row_stride, g.b.row_stride, width, run);
        for (int64_t r = 0; r < m; ++r) {
          const float a = a32[static_cast<std::size_t>(r * k + d)];
          float* acc = part + r * kAxpyColumns;
          for (int64_t c = 0; c < width; ++c) acc[c] += a * run[c];
        }
      }
      for (int64_t r = 0; r < m; ++r)
        for (int64_t c = 0; c < width; ++c) {
          float& acc = tile[r * kAxpyColumns + c];
          const float p = part[r * kAxpyColumns + c];
          const float scaled = g.block_scales != nullptr ? block_scale(g.block_scales, r, n0 + c, j) * p : p;
          acc = j == 0 ? scaled : acc + scaled;
        }
    }
    g.epilogue(0, n0, m, width, tile, kAxpyColumns);
  }
}

}  // namespace

void run_f32_gemm_small_m(const F32Gemm& g, Isa isa) {
  // A is small: decode it to fp32 rows once.
  std::vector<float> a32(static_cast<std::size_t>(g.m * g.k));
  for (int64_t r = 0; r < g.m; ++r) decode_f32_strided(g.a, r * g.a.row_stride, g.a.k_stride, g.k, a32.data() + r * g.k);
  const PairKernel pairs = pair_kernel(isa);
  const bool bf16 = g.a.dtype == OPCERT_DTYPE_BF16 && g.b.dtype == OPCERT_DTYPE_BF16 && g.a.k_stride == 1;
  if (g.b.k_stride == 1 && bf16 && pairs.run != nullptr && g.block_scales == nullptr)
    small_m_pair_dot(g, pairs, f32_kernel(isa), a32);
  else if (g.b.k_stride == 1)
    small_m_dot(g, f32_kernel(isa), a32);
  else
    small_m_axpy(g, a32);
}

void run_i8_gemm_small_m(const I8Gemm& g, Isa isa) {
  const I8Kernel kernel = i8_kernel(isa);
  const int64_t m = g.m, n = g.n, k = g.k;
  const int threads = omp_get_max_threads();
  std::vector<std::vector<int32_t>> tiles(static_cast<std::size_t>(threads));
  for (auto& t : tiles) t.resize(static_cast<std::size_t>(kSmallM * kDotColumns));
  const int64_t tasks = ceil_div(n, kDotColumns);
#pragma omp parallel for schedule(static) if (m * n * k > kWorkPerThread)
  for (int64_t task = 0; task < tasks; ++task) {
    int32_t* tile = tiles[omp_get_thread_num()].data();
    const int64_t n0 = task * kDotColumns, width = std::min(kDotColumns, n - n0);
    for (int64_t c = 0; c < width; ++c)
      for (int64_t r0 = 0; r0 < m; r0 += kDotRowsMax) {
        const int64_t rows = std::min(kDotRowsMax, m - r0);
        int32_t part[kDotRowsMax];
        kernel.dot_rows(g.a + r0 * k, k, rows, g.b + (n0 + c) * k, k, part);
        for (int64_t r = 0; r < rows; ++r) tile[(r0 + r) * kDotColumns + c] = part[r];
      }
    g.epilogue(0, n0, m, width, tile, kDotColumns);
  }
}

}  // namespace opcert::cpu
