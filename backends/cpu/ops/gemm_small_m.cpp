// GEMMs with few rows (M <= kSmallM, LLM decode): memory-bound, so B is streamed once, without
// packing, and each B element meets every row of A while it is in L1. B as [N, K]: dot products
// of B rows with A rows (the kernel's dot_rows). B as [K, N]: each K row of B is added, scaled by
// a[m, k], into a run of accumulators. fp32 accumulation; block scales per K block as in the
// blocked driver (each block summed alone, scaled, added).
#include <omp.h>
#include <opcert/backend_abi.h>

#include <algorithm>
#include <vector>

#include "ops/gemm_driver.h"

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

// B as [N, K]: for each column n, dot products of B's row n with every row of A.
void small_m_dot(const F32Gemm& g, const F32Kernel& kernel, const std::vector<float>& a32) {
  const int64_t m = g.m, n = g.n, k = g.k;
  const int64_t block = g.block_scales != nullptr ? g.block_scales->block : k;
  const int64_t blocks = ceil_div(k, block);
  const bool b_is_f32 = g.b.dtype == OPCERT_DTYPE_F32;
  const int threads = omp_get_max_threads();
  std::vector<std::vector<float>> b_rows(static_cast<std::size_t>(threads));
  std::vector<std::vector<float>> tiles(static_cast<std::size_t>(threads));
  for (int t = 0; t < threads; ++t) {
    b_rows[t].resize(static_cast<std::size_t>(b_is_f32 ? 0 : k));
    tiles[t].resize(static_cast<std::size_t>(kSmallM * kDotColumns));
  }
  const int64_t tasks = ceil_div(n, kDotColumns);
#pragma omp parallel for schedule(static) if (m * n * k > kWorkPerThread)
  for (int64_t task = 0; task < tasks; ++task) {
    const int t = omp_get_thread_num();
    float* tile = tiles[t].data();
    const int64_t n0 = task * kDotColumns, width = std::min(kDotColumns, n - n0);
    for (int64_t c = 0; c < width; ++c) {
      const int64_t col = n0 + c;
      const float* b_row = static_cast<const float*>(g.b.data) + col * g.b.row_stride;
      if (!b_is_f32) {
        decode_f32_strided(g.b, col * g.b.row_stride, 1, k, b_rows[t].data());
        b_row = b_rows[t].data();
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
    g.epilogue(0, n0, m, width, tile, kDotColumns);
  }
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
  if (g.b.k_stride == 1)
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
