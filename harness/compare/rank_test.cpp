#include "compare/rank_test.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace opcert {
namespace {

// Exact below this many samples a side, and without ties (scipy's rule: both under 8; counting
// the distribution stays cheap far beyond that, so opcert goes to 50).
constexpr std::size_t kExactLimit = 50;

// P(U <= u) under the null hypothesis for sizes n, m: the count of rank arrangements with U <= u
// over C(n+m, n), counted with the recurrence f(n, m, u) = f(n-1, m, u-m) + f(n, m-1, u).
double exact_cdf(std::size_t n, std::size_t m, long u) {
  if (u < 0) return 0.0;
  const long max_u = static_cast<long>(n * m);
  if (u >= max_u) return 1.0;
  // counts[i][j][k]: arrangements of i and j samples with U = k, kept as doubles (C(100,50) ~ 1e29).
  std::vector<std::vector<std::vector<double>>> counts(
      n + 1, std::vector<std::vector<double>>(m + 1));
  for (std::size_t i = 0; i <= n; ++i)
    for (std::size_t j = 0; j <= m; ++j) {
      auto& c = counts[i][j];
      c.assign(i * j + 1, 0.0);
      if (i == 0 || j == 0) {
        c[0] = 1.0;
        continue;
      }
      const auto& drop_a = counts[i - 1][j];  // the largest value is from a: it beats all j of b
      const auto& drop_b = counts[i][j - 1];
      for (std::size_t k = 0; k < drop_a.size(); ++k) c[k + j] += drop_a[k];
      for (std::size_t k = 0; k < drop_b.size(); ++k) c[k] += drop_b[k];
    }
  const auto& all = counts[n][m];
  const double total = std::accumulate(all.begin(), all.end(), 0.0);
  double below = 0.0;
  for (long k = 0; k <= u; ++k) below += all[static_cast<std::size_t>(k)];
  return below / total;
}

}  // namespace

double smallest_p_value(std::size_t n, std::size_t m) {
  if (n == 0 || m == 0) return 1.0;
  double arrangements = 1.0;  // C(n + m, n)
  for (std::size_t k = 1; k <= n; ++k) arrangements = arrangements * static_cast<double>(m + k) / static_cast<double>(k);
  return std::min(1.0, 2.0 / arrangements);
}

RankTest mann_whitney_u(const std::vector<double>& a, const std::vector<double>& b) {
  RankTest t;
  const std::size_t n = a.size(), m = b.size();
  if (n == 0 || m == 0) return t;
  for (double x : a)
    for (double y : b) t.u += x > y ? 1.0 : x == y ? 0.5 : 0.0;

  // Ranks of the pooled values (ties share their mean rank), for the tie correction.
  std::vector<double> pooled(a);
  pooled.insert(pooled.end(), b.begin(), b.end());
  std::sort(pooled.begin(), pooled.end());
  double tie_term = 0.0;
  bool ties = false;
  for (std::size_t i = 0; i < pooled.size();) {
    std::size_t j = i;
    while (j < pooled.size() && pooled[j] == pooled[i]) ++j;
    const double size = static_cast<double>(j - i);
    if (size > 1) ties = true;
    tie_term += size * size * size - size;
    i = j;
  }

  if (!ties && n <= kExactLimit && m <= kExactLimit) {
    const long u = std::lround(t.u);
    const double low = exact_cdf(n, m, u);                                    // P(U <= u)
    const double high = 1.0 - exact_cdf(n, m, u - 1);                         // P(U >= u)
    t.p_value = std::min(1.0, 2.0 * std::min(low, high));
    t.exact = true;
    return t;
  }
  const double nn = static_cast<double>(n), mm = static_cast<double>(m), total = nn + mm;
  const double mean = nn * mm / 2.0;
  const double variance = nn * mm / 12.0 * ((total + 1.0) - tie_term / (total * (total - 1.0)));
  if (variance <= 0) return t;  // every value equal: nothing tells them apart
  const double z = (std::fabs(t.u - mean) - 0.5) / std::sqrt(variance);
  t.p_value = std::min(1.0, std::erfc(std::max(z, 0.0) / std::sqrt(2.0)));
  return t;
}

}  // namespace opcert
