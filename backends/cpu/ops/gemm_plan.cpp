#include "ops/gemm_plan.h"

#include <cmath>
#include <limits>

namespace opcert::cpu {
namespace {

// Splits C into grid_m x grid_n rectangles for at most `threads` threads, minimising the
// slowest thread's estimated time: its multiply-adds plus its packing of B and of A.
void choose_grid(Plan& p, int64_t m, int64_t n, int64_t k) {
  const int64_t depth = std::max<int64_t>(k, 1);
  const int64_t useful = std::max<int64_t>(1, m * n * depth / kWorkPerThread);
  const int64_t threads = std::min<int64_t>(omp_get_max_threads(), useful);
  const int64_t units_m = ceil_div(m, p.mr), units_n = ceil_div(n, p.nr);
  double best = std::numeric_limits<double>::max();
  for (int64_t gm = 1; gm <= std::min(threads, units_m); ++gm) {
    for (int64_t gn = 1; gm * gn <= threads && gn <= units_n; ++gn) {
      const double mt = static_cast<double>(ceil_div(units_m, gm) * p.mr);
      const double nt = static_cast<double>(ceil_div(units_n, gn) * p.nr);
      const double kk = static_cast<double>(depth);
      const double cost = mt * nt * kk / 16.0 + 2.0 * nt * kk + 2.0 * mt * kk * std::ceil(nt / static_cast<double>(p.nc));
      if (cost < best * 0.999) {
        best = cost;
        p.grid_m = gm;
        p.grid_n = gn;
      }
    }
  }
}

}  // namespace

Plan make_plan(int64_t mr, int64_t nr, int64_t kc, int64_t m, int64_t n, int64_t k) {
  Plan p{mr, nr, kc, 0, 0};
  p.mc = mr * std::max<int64_t>(1, kRowBlockTarget / mr);
  const int64_t nc_by_memory = (kPackedBLimit / std::max<int64_t>(k, 1)) / nr * nr;
  p.nc = std::max(nr, std::min(nr * std::max<int64_t>(1, kColBlockTarget / nr), nc_by_memory));
  choose_grid(p, m, n, k);
  return p;
}

std::pair<int64_t, int64_t> part_range(int64_t total, int64_t unit, int64_t parts, int64_t i) {
  const int64_t units = ceil_div(total, unit);
  const int64_t b = units * i / parts, e = units * (i + 1) / parts;
  return {std::min(total, b * unit), std::min(total, e * unit)};
}

std::pair<int64_t, int64_t> block_extent(const Plan& p, int64_t m, int64_t n) {
  const int64_t rows = ceil_div(ceil_div(m, p.mr), p.grid_m) * p.mr;
  const int64_t cols = ceil_div(ceil_div(n, p.nr), p.grid_n) * p.nr;
  return {std::min(round_up(p.mc, p.mr), rows), std::min(round_up(p.nc, p.nr), cols)};
}

}  // namespace opcert::cpu
