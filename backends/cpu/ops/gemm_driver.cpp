#include "ops/gemm_driver.h"

#include <omp.h>

#include <algorithm>
#include <vector>

#include "ops/gemm_pack_pairs.h"
#include "ops/gemm_plan.h"

namespace opcert::cpu {
namespace {

struct F32Workspace {
  float *packed_b, *packed_a, *tile, *row_scale, *col_scale;
};

}  // namespace

void run_f32_gemm(const F32Gemm& g, Isa isa) {
  if (g.m <= 0 || g.n <= 0) return;
  if (g.m <= kSmallM && g.k > 0) return run_f32_gemm_small_m(g, isa);
  const PairKernel pairs = pair_kernel(isa);
  const bool pairs_fit = pairs.run != nullptr && pairs_hold(g.a.dtype) && pairs_hold(g.b.dtype) && g.k > 0;
  if (pairs_fit && run_pair_gemm(g, pairs)) return;
  const F32Kernel kernel = f32_kernel(isa);
  const int64_t kc = g.block_scales != nullptr ? g.block_scales->block : kDepthBlock;
  const Plan p = make_plan(kernel.mr, kernel.nr, kc, g.m, g.n, g.k);
  const auto [mc_pad, nc_max] = block_extent(p, g.m, g.n);
  const int64_t nc_pad = nc_max + kTilePad;

  // A band of kRowBand M blocks shares each packed B block (kc x nc) while it is in cache; the
  // band's accumulators (band x nc) persist across the K blocks.
  const int64_t band = std::min(kRowBand * p.mc, mc_pad * ceil_div(ceil_div(g.m, p.grid_m), mc_pad));
  const int64_t band_pad = round_up(band, p.mr);
  std::vector<F32Workspace> spaces(static_cast<std::size_t>(p.grid_m * p.grid_n));
  for (std::size_t i = 0; i < spaces.size(); ++i) {
    auto size = [](int64_t count) { return static_cast<std::size_t>(std::max<int64_t>(count, 1)); };
    F32Workspace& w = spaces[i];
    w.packed_b = scratch<float>(5 * i + 0, size(nc_pad * std::min(kc, g.k)));
    w.packed_a = scratch<float>(5 * i + 1, size(mc_pad * std::min(kc, g.k)));
    w.tile = scratch<float>(5 * i + 2, size(band_pad * nc_pad));
    w.row_scale = scratch<float>(5 * i + 3, size(band_pad));
    w.col_scale = scratch<float>(5 * i + 4, size(nc_pad));
  }

  for_each_cell(p, [&](int64_t cm, int64_t cn, int thread) {
    F32Workspace& w = spaces[static_cast<std::size_t>(thread)];
    const auto [m_lo, m_hi] = part_range(g.m, p.mr, p.grid_m, cm);
    const auto [n_lo, n_hi] = part_range(g.n, p.nr, p.grid_n, cn);
    for (int64_t jc = n_lo; jc < n_hi; jc += p.nc) {
      const int64_t ncur = std::min(p.nc, n_hi - jc);
      const int64_t n_panels = ceil_div(ncur, p.nr);
      const int64_t panels_width = n_panels * p.nr;
      const int64_t ldt = panels_width + kTilePad;
      for (int64_t mo = m_lo; mo < m_hi; mo += band) {
        const int64_t band_rows = std::min(band, m_hi - mo);
        if (g.k == 0) std::fill(w.tile, w.tile + round_up(band_rows, p.mr) * ldt, 0.0f);
        for (int64_t pc = 0; pc < g.k; pc += kc) {
          const int64_t kcur = std::min(kc, g.k - pc);
          pack_f32_panels(g.b, jc, ncur, pc, kcur, kernel.nr, w.packed_b, kernel);
          TileUpdate update = pc == 0 ? TileUpdate::kStore : TileUpdate::kAccumulate;
          if (const BlockScales* s = g.block_scales) {
            update = pc == 0 ? TileUpdate::kScaleStore : TileUpdate::kScaleAccumulate;
            const int64_t j = pc / s->block;
            for (int64_t i = 0; i < round_up(band_rows, p.mr); ++i)
              w.row_scale[i] = i < band_rows ? s->a[(mo + i) * s->a_ld + j] : 0.0f;
            for (int64_t c = 0; c < panels_width; ++c)
              w.col_scale[c] = c < ncur ? s->b[((jc + c) / s->block) * s->b_ld + j] : 0.0f;
          }
          for (int64_t ic = mo; ic < mo + band_rows; ic += p.mc) {
            const int64_t mcur = std::min(p.mc, mo + band_rows - ic);
            const int64_t m_panels = ceil_div(mcur, p.mr);
            pack_f32_panels(g.a, ic, mcur, pc, kcur, kernel.mr, w.packed_a, kernel);
            float* tile = w.tile + (ic - mo) * ldt;
            const float* row_scale = w.row_scale + (ic - mo);
            for (int64_t jr = 0; jr < n_panels; ++jr)
              for (int64_t ir = 0; ir < m_panels; ++ir)
                kernel.run(kcur, w.packed_a + ir * kcur * p.mr, w.packed_b + jr * kcur * p.nr,
                           tile + ir * p.mr * ldt + jr * p.nr, ldt, update, row_scale + ir * p.mr,
                           w.col_scale + jr * p.nr);
          }
        }
        g.epilogue(mo, jc, band_rows, ncur, w.tile, ldt);
      }
    }
  });
}

namespace {

struct I8Workspace {
  uint32_t *packed_b, *packed_a;
  int32_t* tile;
};

}  // namespace

void run_i8_gemm(const I8Gemm& g, Isa isa) {
  if (g.m <= 0 || g.n <= 0) return;
  if (g.m <= kSmallM && g.k > 0) return run_i8_gemm_small_m(g, isa);
  const I8Kernel kernel = i8_kernel(isa);
  const int64_t kc = 4 * kDepthBlock;  // 256 words of 4 bytes; a multiple of 4 keeps blocks aligned
  const Plan p = make_plan(kernel.mr, kernel.nr, kc, g.m, g.n, ceil_div(g.k, 4));
  const auto [mc_pad, nc_max] = block_extent(p, g.m, g.n);
  const int64_t nc_pad = nc_max + kTilePad;
  const int64_t k4 = ceil_div(g.k, 4);

  std::vector<I8Workspace> spaces(static_cast<std::size_t>(p.grid_m * p.grid_n));
  for (std::size_t i = 0; i < spaces.size(); ++i) {
    auto size = [](int64_t count) { return static_cast<std::size_t>(std::max<int64_t>(count, 1)); };
    I8Workspace& w = spaces[i];
    w.packed_b = scratch<uint32_t>(3 * i + 0, size(nc_pad * k4));
    w.packed_a = scratch<uint32_t>(3 * i + 1, size(mc_pad * std::min(kc / 4, k4)));
    w.tile = scratch<int32_t>(3 * i + 2, size(mc_pad * nc_pad));
  }
  // The kernels see A + 128: subtract 128 * sum_k b[n, k] from each column (modulo 2^32).
  std::vector<uint32_t> offset_fix(static_cast<std::size_t>(g.n));
#pragma omp parallel for if (g.n * g.k > kWorkPerThread)
  for (int64_t n = 0; n < g.n; ++n) {
    int64_t sum = 0;
    for (int64_t k = 0; k < g.k; ++k) sum += g.b[n * g.k + k];
    offset_fix[static_cast<std::size_t>(n)] = static_cast<uint32_t>(sum) * 128u;
  }

  for_each_cell(p, [&](int64_t cm, int64_t cn, int thread) {
    I8Workspace& w = spaces[static_cast<std::size_t>(thread)];
    const auto [m_lo, m_hi] = part_range(g.m, p.mr, p.grid_m, cm);
    const auto [n_lo, n_hi] = part_range(g.n, p.nr, p.grid_n, cn);
    for (int64_t jc = n_lo; jc < n_hi; jc += p.nc) {
      const int64_t ncur = std::min(p.nc, n_hi - jc);
      const int64_t n_panels = ceil_div(ncur, p.nr);
      const int64_t panels_width = n_panels * p.nr;
      const int64_t ldt = panels_width + kTilePad;
      for (int64_t pc = 0; pc < g.k; pc += kc)
        pack_i8_panels_signed(g.b, g.k, jc, ncur, pc, std::min(kc, g.k - pc), kernel.nr,
                              w.packed_b + pc / 4 * panels_width);
      for (int64_t ic = m_lo; ic < m_hi; ic += p.mc) {
        const int64_t mcur = std::min(p.mc, m_hi - ic);
        const int64_t m_panels = ceil_div(mcur, p.mr);
        int32_t* tile = w.tile;
        if (g.k == 0) std::fill(tile, tile + m_panels * p.mr * ldt, 0);
        for (int64_t pc = 0; pc < g.k; pc += kc) {
          const int64_t kc4 = ceil_div(std::min(kc, g.k - pc), 4);
          pack_i8_panels_offset(g.a, g.k, ic, mcur, pc, std::min(kc, g.k - pc), kernel.mr, w.packed_a);
          const uint32_t* b_block = w.packed_b + pc / 4 * panels_width;
          for (int64_t jr = 0; jr < n_panels; ++jr)
            for (int64_t ir = 0; ir < m_panels; ++ir)
              kernel.run(kc4, w.packed_a + ir * kc4 * p.mr, b_block + jr * kc4 * p.nr,
                         tile + ir * p.mr * ldt + jr * p.nr, ldt, pc == 0 ? 0 : 1);
        }
        for (int64_t i = 0; i < mcur; ++i)
          for (int64_t c = 0; c < ncur; ++c) {
            int32_t& v = tile[i * ldt + c];
            v = static_cast<int32_t>(static_cast<uint32_t>(v) - offset_fix[static_cast<std::size_t>(jc + c)]);
          }
        g.epilogue(ic, jc, mcur, ncur, tile, ldt);
      }
    }
  });
}

}  // namespace opcert::cpu
