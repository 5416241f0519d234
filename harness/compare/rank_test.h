// The Mann-Whitney U test (Wilcoxon rank-sum), two-sided: whether two sets of repetition times
// come from one distribution, as Google Benchmark's tools/compare.py asks it. Exact (the U
// distribution counted) for small samples without ties, the normal approximation with tie and
// continuity corrections otherwise (as scipy.stats.mannwhitneyu's "auto").
#pragma once

#include <vector>

namespace opcert {

struct RankTest {
  double u = 0.0;        ///< U of the first sample: pairs (a, b) with a > b, ties counted 1/2
  double p_value = 1.0;  ///< two-sided
  bool exact = false;    ///< the exact distribution, not the normal approximation
};

/// The test of `a` against `b`; p 1 when either is empty.
RankTest mann_whitney_u(const std::vector<double>& a, const std::vector<double>& b);

/// The smallest two-sided p the exact test can give samples of these sizes (all of one above all
/// of the other): 2 / C(n + m, n). A p threshold under it can never be met.
double smallest_p_value(std::size_t n, std::size_t m);

}  // namespace opcert
