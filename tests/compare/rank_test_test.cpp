// compare/rank_test.h against the Mann-Whitney U distribution counted by hand and against
// scipy.stats.mannwhitneyu's values (method "exact", and "asymptotic" with ties).
#include "compare/rank_test.h"

#include <gtest/gtest.h>

namespace opcert {
namespace {

TEST(MannWhitneyU, ExactForSmallSamplesWithoutTies) {
  // Every value of one side above every value of the other: p = 2 / C(n + m, n).
  const auto apart = mann_whitney_u({4, 5, 6}, {1, 2, 3});
  EXPECT_TRUE(apart.exact);
  EXPECT_EQ(apart.u, 9.0);
  EXPECT_NEAR(apart.p_value, 2.0 / 20, 1e-12);
  EXPECT_NEAR(mann_whitney_u({1, 2, 3, 4}, {5, 6, 7, 8}).p_value, 2.0 / 70, 1e-12);
  EXPECT_NEAR(mann_whitney_u({10, 11, 12, 13, 14}, {1, 2, 3, 4, 5}).p_value, 2.0 / 252, 1e-12);
  // Interleaved: U = 3 of 9; the counts of U = 0..9 for 3 and 3 are 1 1 2 3 3 3 3 2 1 1.
  const auto mixed = mann_whitney_u({1, 3, 5}, {2, 4, 6});
  EXPECT_EQ(mixed.u, 3.0);
  EXPECT_NEAR(mixed.p_value, 2.0 * 7 / 20, 1e-12);
  // Unequal sizes: scipy.stats.mannwhitneyu([1.1, 2.3, 0.7, 5.0], [3.2, 4.4, 6.1, 7.9, 8.5, 2.9], method="exact").
  EXPECT_NEAR(mann_whitney_u({1.1, 2.3, 0.7, 5.0}, {3.2, 4.4, 6.1, 7.9, 8.5, 2.9}).p_value, 2.0 * 7 / 210, 1e-12);
}

TEST(MannWhitneyU, TiesUseTheNormalApproximationWithCorrections) {
  // scipy.stats.mannwhitneyu([1, 2, 2, 3, 3], [3, 3, 4, 4, 5]) (ties: asymptotic, continuity-corrected).
  const auto t = mann_whitney_u({1, 2, 2, 3, 3}, {3, 3, 4, 4, 5});
  EXPECT_FALSE(t.exact);
  EXPECT_EQ(t.u, 2.0);
  EXPECT_NEAR(t.p_value, 0.030059567892412428, 1e-9);
  // All equal: nothing tells them apart.
  EXPECT_EQ(mann_whitney_u({2, 2, 2}, {2, 2}).p_value, 1.0);
}

TEST(MannWhitneyU, SymmetricAndEmptySafe) {
  const std::vector<double> a = {0.3, 0.9, 0.1, 0.5}, b = {0.6, 0.8, 1.2, 0.95, 0.4};
  EXPECT_NEAR(mann_whitney_u(a, b).p_value, mann_whitney_u(b, a).p_value, 1e-12);
  EXPECT_EQ(mann_whitney_u({}, b).p_value, 1.0);
}

TEST(SmallestPValue, SaysWhenATestCannotReachTheLevel) {
  EXPECT_NEAR(smallest_p_value(3, 3), 0.1, 1e-12);    // 3 against 3 can never give p < 0.05
  EXPECT_NEAR(smallest_p_value(4, 4), 2.0 / 70, 1e-12);
  EXPECT_NEAR(smallest_p_value(1, 9), 0.2, 1e-12);
  EXPECT_EQ(smallest_p_value(0, 5), 1.0);
}

}  // namespace
}  // namespace opcert
