// The rms_norm reference on cases worked by hand, with and without a residual.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "ops/reference_test_util.h"

namespace opcert {
namespace {

using testing::CaseUnderTest;
using testing::expect_values;

TEST(RmsNormReference, HandWorked) {
  // x = [1, 1, 1, 5]: mean square 7, eps 2 -> rsqrt(9) = 1/3; weight [3, 3, 3, 0.6] -> 1.
  CaseUnderTest t("rms_norm");
  t.input("x", OPCERT_DTYPE_F32, {1, 4}, {1, 1, 1, 5}).input("weight", OPCERT_DTYPE_F32, {4}, {3, 3, 3, 0.6});
  t.output("y", OPCERT_DTYPE_F32, {1, 4}).attr("eps", 2.0);
  const auto out = t.run();
  const double w3 = static_cast<float>(0.6);
  expect_values(out[0].values, {1, 1, 1, 5.0 / 3.0 * w3}, 1e-15, "y");
  expect_values(out[0].magnitude, out[0].values, 0, "y magnitude");
}

TEST(RmsNormReference, NormalisesTheRoundedResidual) {
  // bf16: 1 + 2^-8 rounds (tie to even) to 1, so r = [1, 1] and y = [1, 1] with eps 0;
  // residual_out is the exact sum.
  CaseUnderTest t("rms_norm");
  t.input("x", OPCERT_DTYPE_BF16, {1, 2}, {1, 1}).input("residual", OPCERT_DTYPE_BF16, {1, 2}, {std::ldexp(1.0, -8), 0});
  t.output("y", OPCERT_DTYPE_BF16, {1, 2}).output("residual_out", OPCERT_DTYPE_BF16, {1, 2}).attr("eps", 0.0);
  const auto out = t.run();
  ASSERT_EQ(out.size(), 2u);
  expect_values(out[0].values, {1, 1}, 1e-15, "y");
  EXPECT_EQ(out[1].name, "residual_out");
  EXPECT_EQ(out[1].values, (std::vector<double>{1 + std::ldexp(1.0, -8), 1}));
  EXPECT_EQ(out[1].magnitude, (std::vector<double>{1 + std::ldexp(1.0, -8), 1}));
}

}  // namespace
}  // namespace opcert
