// The blocked GEMM on the AVX512-BF16 pair kernel (gemm_driver.h). B is packed once for all
// threads, a column block at a time over the whole K; the M blocks are then handed to the threads
// as they finish. No thread repeats another's packing of B, and a core that runs slower (a busy
// neighbour on a shared host) takes fewer blocks instead of holding the others up at the end.
#include <omp.h>

#include <algorithm>
#include <atomic>
#include <vector>

#include "ops/gemm_driver.h"
#include "ops/gemm_pack_pairs.h"
#include "ops/gemm_plan.h"

namespace opcert::cpu {
namespace {

constexpr int64_t kPackedBBytes = int64_t{4} << 20;  // packed B of one column block (all of K)
constexpr int64_t kBlocksPerThread = 16;              // M blocks per thread: the grain of the split
constexpr int64_t kPanelsPerPackTask = 8;             // B panels one thread packs at a time

int64_t pair_depth(int64_t kc) { return (kc + 1) / 2; }

// Packs columns [jc, jc + ncur) of B over every K block, shared out among the threads of the
// enclosing parallel region: block j's panels at packed + j * panels * block_depth * nr, panel p
// of it at + p * pair_depth(kcur) * nr. least[j * groups + g] gets task (j, g)'s least nonzero
// magnitude. Ends with the region's barrier.
void pack_b_block(const F32Gemm& g, const PairKernel& kernel, int64_t kc, int64_t jc, int64_t ncur, uint32_t* packed,
                  std::vector<uint16_t>& least) {
  const int64_t nr = kernel.nr, panels = ceil_div(ncur, nr), block_words = panels * pair_depth(kc) * nr;
  const int64_t groups = ceil_div(panels, kPanelsPerPackTask), tasks = ceil_div(g.k, kc) * groups;
#pragma omp for schedule(dynamic, 1)
  for (int64_t task = 0; task < tasks; ++task) {
    const int64_t j = task / groups, p0 = (task % groups) * kPanelsPerPackTask;
    const int64_t pc = j * kc, kcur = std::min(kc, g.k - pc);
    const int64_t cols = std::min(kPanelsPerPackTask * nr, ncur - p0 * nr);
    uint32_t* dst = packed + j * block_words + p0 * pair_depth(kcur) * nr;
    least[static_cast<std::size_t>(task)] =
        pack_pair_panels(g.b, jc + p0 * nr, cols, pc, kcur, static_cast<int32_t>(nr), dst, kernel);
  }
}

// The least nonzero magnitude of B's K block j: the least over its pack tasks.
uint16_t block_least(const std::vector<uint16_t>& least, int64_t groups, int64_t j) {
  uint16_t block = 0;
  for (int64_t t = j * groups; t < (j + 1) * groups; ++t) block = least_nonzero(block, least[static_cast<std::size_t>(t)]);
  return block;
}

}  // namespace

bool run_pair_gemm(const F32Gemm& g, const PairKernel& kernel) {
  const int64_t mr = kernel.mr, nr = kernel.nr;
  const int64_t kc = g.block_scales != nullptr ? g.block_scales->block : kDepthBlock;
  const int64_t k_blocks = ceil_div(g.k, kc), block_depth = pair_depth(kc);
  const int64_t panel_words = k_blocks * block_depth * nr;  // one B panel over all of K
  const int64_t n_panels = ceil_div(g.n, nr);
  const int64_t nc = nr * std::clamp<int64_t>(kPackedBBytes / (4 * panel_words), 1, n_panels);
  const int64_t useful = std::max<int64_t>(1, g.m * g.n * g.k / kWorkPerThread);
  const int threads = static_cast<int>(std::min<int64_t>(omp_get_max_threads(), useful));
  const int64_t mc = std::clamp(round_up(ceil_div(g.m, threads * kBlocksPerThread), mr), mr,
                                mr * std::max<int64_t>(1, kRowBlockTarget / mr));
  const int64_t m_blocks = ceil_div(g.m, mc);
  uint32_t* packed_b = scratch<uint32_t>(0, static_cast<std::size_t>(ceil_div(nc, nr) * panel_words));

  std::atomic<bool> inexact{false};
  for (int64_t jc = 0; jc < g.n && !inexact.load(); jc += nc) {
    const int64_t ncur = std::min(nc, g.n - jc), panels = ceil_div(ncur, nr);
    const int64_t width = panels * nr, ldt = width + kTilePad;
    const int64_t groups = ceil_div(panels, kPanelsPerPackTask);
    std::vector<uint16_t> least_b(static_cast<std::size_t>(k_blocks * groups));
    // One region per column block: B packed by all, then the M blocks handed out.
#pragma omp parallel num_threads(threads)
    {
      // Each thread's own scratch (slots 1-4; slot 0 of the calling thread holds packed B).
      auto* packed_a = scratch<uint32_t>(1, static_cast<std::size_t>(mc * block_depth));
      float* tile = scratch<float>(2, static_cast<std::size_t>(mc * ldt));
      float* row_scale = scratch<float>(3, static_cast<std::size_t>(mc));
      float* col_scale = scratch<float>(4, static_cast<std::size_t>(width));
      pack_b_block(g, kernel, kc, jc, ncur, packed_b, least_b);
#pragma omp for schedule(dynamic, 1)
      for (int64_t ib = 0; ib < m_blocks; ++ib) {
        const int64_t ic = ib * mc, mcur = std::min(mc, g.m - ic), m_panels = ceil_div(mcur, mr);
        for (int64_t j = 0; j < k_blocks && !inexact.load(std::memory_order_relaxed); ++j) {
          const int64_t pc = j * kc, kcur = std::min(kc, g.k - pc), depth = pair_depth(kcur);
          const uint16_t least_a = pack_pair_panels(g.a, ic, mcur, pc, kcur, static_cast<int32_t>(mr), packed_a, kernel);
          if (!pair_products_exact(least_a, block_least(least_b, groups, j))) {
            inexact.store(true, std::memory_order_relaxed);
            break;
          }
          TileUpdate update = j == 0 ? TileUpdate::kStore : TileUpdate::kAccumulate;
          if (const BlockScales* s = g.block_scales) {
            update = j == 0 ? TileUpdate::kScaleStore : TileUpdate::kScaleAccumulate;
            for (int64_t i = 0; i < m_panels * mr; ++i) row_scale[i] = i < mcur ? s->a[(ic + i) * s->a_ld + j] : 0.0f;
            for (int64_t c = 0; c < width; ++c) col_scale[c] = c < ncur ? s->b[((jc + c) / s->block) * s->b_ld + j] : 0.0f;
          }
          const uint32_t* b_block = packed_b + j * panels * block_depth * nr;
          for (int64_t jr = 0; jr < panels; ++jr)
            for (int64_t ir = 0; ir < m_panels; ++ir)
              kernel.run(depth, packed_a + ir * depth * mr, b_block + jr * depth * nr, tile + ir * mr * ldt + jr * nr,
                         ldt, update, row_scale + ir * mr, col_scale + jr * nr);
        }
        if (!inexact.load(std::memory_order_relaxed)) g.epilogue(ic, jc, mcur, ncur, tile, ldt);
      }
    }
  }
  return !inexact.load();
}

}  // namespace opcert::cpu
