// The quantize reference on cases worked by hand, per token and per tensor, and sampled.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "ops/reference_test_util.h"

namespace opcert {
namespace {

using testing::CaseUnderTest;
using testing::expect_values;

TEST(QuantizeReference, PerTokenInt8) {
  // Row 0: amax 4, scale 4/127; q = x divided by the fp32-rounded scale. Row 1: all zero.
  CaseUnderTest t("quantize");
  t.input("x", OPCERT_DTYPE_F32, {2, 4}, {1, -2, 0.5, 4, 0, 0, 0, 0});
  t.output("q", OPCERT_DTYPE_I8, {2, 4}).output("scale", OPCERT_DTYPE_F32, {2});
  const auto out = t.run();
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].name, "q");
  EXPECT_EQ(out[1].name, "scale");
  EXPECT_EQ(out[1].values, (std::vector<double>{4.0 / 127.0, 0.0}));
  const double held = static_cast<float>(4.0 / 127.0);
  EXPECT_NE(held, 4.0 / 127.0);  // the case exercises the fp32 rounding of the scale
  expect_values(out[0].values, {1 / held, -2 / held, 0.5 / held, std::min(4 / held, 127.0), 0, 0, 0, 0}, 0, "q");
  EXPECT_NEAR(out[0].values[0], 31.75, 1e-5);
  EXPECT_LE(out[0].values[3], 127.0);
  EXPECT_GE(out[0].values[3], 126.999);
  EXPECT_EQ(out[0].magnitude[1], std::fabs(out[0].values[1]));
}

TEST(QuantizeReference, PerTensorFp8) {
  // amax over the whole tensor is 896 = 2 * 448: scale 2 (exact), q = x / 2.
  CaseUnderTest t("quantize");
  t.input("x", OPCERT_DTYPE_BF16, {2, 2}, {1, -896, 3, 10});
  t.output("q", OPCERT_DTYPE_F8_E4M3FN, {2, 2}).output("scale", OPCERT_DTYPE_F32, {1}).attr("granularity", std::string("tensor"));
  const auto out = t.run();
  EXPECT_EQ(out[1].values, std::vector<double>{2.0});
  EXPECT_EQ(out[0].values, (std::vector<double>{0.5, -448, 1.5, 5}));
  testing::expect_sample_matches_whole(t, 3);
}

TEST(QuantizeReference, SampleMatchesWhole) {
  CaseUnderTest t("quantize");
  t.input("x", OPCERT_DTYPE_F16, {9, 13}, testing::pseudo_random(9 * 13, 5, -3, 3));
  t.output("q", OPCERT_DTYPE_F8_E5M2, {9, 13}).output("scale", OPCERT_DTYPE_F32, {9});
  testing::expect_sample_matches_whole(t, 4);
}

}  // namespace
}  // namespace opcert
