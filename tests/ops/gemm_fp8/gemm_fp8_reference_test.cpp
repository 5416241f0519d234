// The gemm_fp8 reference on hand-worked cases: tensor, channel and block scaling, a NaN code.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "ops/reference_test_util.h"

namespace opcert {
namespace {

using testing::CaseUnderTest;
using testing::expect_values;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// gemm_fp8, per tensor: a = [1.5, -2], b = [2, 0.5]: sum = 3 - 1 = 2, times 0.5 * 4, plus 1.
TEST(GemmFp8Reference, TensorScaling) {
  CaseUnderTest t("gemm_fp8");
  t.input("a", OPCERT_DTYPE_F8_E4M3FN, {1, 2}, {1.5, -2}).input("b", OPCERT_DTYPE_F8_E5M2, {1, 2}, {2, 0.5});
  t.input("a_scale", OPCERT_DTYPE_F32, {1}, {0.5}).input("b_scale", OPCERT_DTYPE_F32, {1}, {4});
  t.input("bias", OPCERT_DTYPE_BF16, {1}, {1}).output("c", OPCERT_DTYPE_BF16, {1, 1});
  const auto out = t.run();
  EXPECT_EQ(out[0].values, std::vector<double>{5});
  EXPECT_EQ(out[0].magnitude, std::vector<double>{0.5 * 4 * (3 + 1) + 1});
}

TEST(GemmFp8Reference, ChannelScaling) {
  // a = [[1, 2], [3, -1]], b = [[1, 1], [2, -2]]: acc = [[3, -2], [2, 8]].
  CaseUnderTest t("gemm_fp8");
  t.input("a", OPCERT_DTYPE_F8_E4M3FN, {2, 2}, {1, 2, 3, -1}).input("b", OPCERT_DTYPE_F8_E4M3FN, {2, 2}, {1, 1, 2, -2});
  t.input("a_scale", OPCERT_DTYPE_F32, {2}, {1, 0.5}).input("b_scale", OPCERT_DTYPE_F32, {2}, {2, -4});
  t.output("c", OPCERT_DTYPE_F32, {2, 2}).attr("scaling", std::string("channel"));
  const auto out = t.run();
  EXPECT_EQ(out[0].values, (std::vector<double>{6, 8, 2, -16}));
  EXPECT_EQ(out[0].magnitude, (std::vector<double>{6, 24, 4, 16}));
}

TEST(GemmFp8Reference, BlockScaling) {
  // K = 256 (two 128-blocks), N = 129 (two 128-row blocks of B). a = 1; b = 1 in the first
  // K-block, 2 in the second. a_scale = [1, 0.5]; b_scale = [[2, 4], [8, 16]].
  // c[n < 128] = 1*2*128 + 0.5*4*256 = 768; c[128] = 1*8*128 + 0.5*16*256 = 3072.
  const int64_t k = 256, n = 129;
  std::vector<double> b(static_cast<std::size_t>(n * k));
  for (int64_t i = 0; i < n * k; ++i) b[static_cast<std::size_t>(i)] = i % k < 128 ? 1.0 : 2.0;
  CaseUnderTest t("gemm_fp8");
  t.input("a", OPCERT_DTYPE_F8_E4M3FN, {1, k}, std::vector<double>(k, 1.0)).input("b", OPCERT_DTYPE_F8_E4M3FN, {n, k}, b);
  t.input("a_scale", OPCERT_DTYPE_F32, {1, 2}, {1, 0.5}).input("b_scale", OPCERT_DTYPE_F32, {2, 2}, {2, 4, 8, 16});
  t.output("c", OPCERT_DTYPE_F32, {1, n}).attr("scaling", std::string("block"));
  const auto out = t.run();
  ASSERT_EQ(out[0].values.size(), static_cast<std::size_t>(n));
  EXPECT_EQ(out[0].values[0], 768);
  EXPECT_EQ(out[0].values[127], 768);
  EXPECT_EQ(out[0].values[128], 3072);
  testing::expect_sample_matches_whole(t, 5);
}

TEST(GemmFp8Reference, NanCodePropagates) {
  CaseUnderTest t("gemm_fp8");
  t.input("a", OPCERT_DTYPE_F8_E4M3FN, {2, 2}, {kNaN, 1, 1, 1}).input("b", OPCERT_DTYPE_F8_E4M3FN, {1, 2}, {1, 1});
  t.input("a_scale", OPCERT_DTYPE_F32, {1}, {1}).input("b_scale", OPCERT_DTYPE_F32, {1}, {1});
  t.output("c", OPCERT_DTYPE_F32, {2, 1});
  expect_values(t.run()[0].values, {kNaN, 2}, 0, "c");
}

}  // namespace
}  // namespace opcert
