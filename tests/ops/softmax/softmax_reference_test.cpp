// The softmax reference on rows worked by hand (special values included), and sampled.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "ops/reference_test_util.h"

namespace opcert {
namespace {

using testing::CaseUnderTest;
using testing::expect_values;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

TEST(SoftmaxReference, HandWorkedRowsAndSpecialValues) {
  CaseUnderTest t("softmax");
  t.input("x", OPCERT_DTYPE_F32, {6, 3},
          {0, 0, 0,            // uniform
           1, 2, 3,            // e^x / sum
           -kInf, 0, -kInf,    // only one finite
           kNaN, 0, 0,         // NaN row
           kInf, 0, 0,         // +inf row
           -kInf, -kInf, -kInf});
  t.output("y", OPCERT_DTYPE_F32, {6, 3});
  const auto out = t.run();
  const double z = std::exp(1.0) + std::exp(2.0) + std::exp(3.0);
  expect_values(out[0].values,
                {1.0 / 3, 1.0 / 3, 1.0 / 3, std::exp(1.0) / z, std::exp(2.0) / z, std::exp(3.0) / z, 0, 1, 0, kNaN, kNaN,
                 kNaN, kNaN, kNaN, kNaN, kNaN, kNaN, kNaN},
                1e-15, "y");
  ASSERT_EQ(out[0].condition.size(), 18u);
  EXPECT_DOUBLE_EQ(out[0].condition[0], std::log(3.0));
  EXPECT_DOUBLE_EQ(out[0].condition[3], 3 + std::log(3.0));
  EXPECT_DOUBLE_EQ(out[0].condition[6], std::log(3.0));  // -inf is not an exp argument
}

TEST(SoftmaxReference, SampleMatchesWhole) {
  CaseUnderTest t("softmax");
  t.input("x", OPCERT_DTYPE_F16, {2, 3, 11}, testing::pseudo_random(66, 51, -8, 8));
  t.output("y", OPCERT_DTYPE_F16, {2, 3, 11});
  testing::expect_sample_matches_whole(t, 4);
}

}  // namespace
}  // namespace opcert
