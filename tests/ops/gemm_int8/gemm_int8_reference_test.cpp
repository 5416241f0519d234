// The gemm_int8 reference on hand-worked cases: exact int32 and dequantized.
#include <gtest/gtest.h>

#include <vector>

#include "ops/reference_test_util.h"

namespace opcert {
namespace {

using testing::CaseUnderTest;

TEST(GemmInt8Reference, ExactInt32) {
  // a = [[1, -2], [127, -128]], b = [[3, 4]]: [-5, 381 - 512 = -131].
  CaseUnderTest t("gemm_int8");
  t.input("a", OPCERT_DTYPE_I8, {2, 2}, {1, -2, 127, -128}).input("b", OPCERT_DTYPE_I8, {1, 2}, {3, 4});
  t.output("c", OPCERT_DTYPE_I32, {2, 1});
  const auto out = t.run();
  EXPECT_EQ(out[0].values, (std::vector<double>{-5, -131}));
  EXPECT_EQ(out[0].magnitude, (std::vector<double>{11, 893}));
}

TEST(GemmInt8Reference, Dequantized) {
  CaseUnderTest t("gemm_int8");
  t.input("a", OPCERT_DTYPE_I8, {2, 2}, {1, -2, 127, -128}).input("b", OPCERT_DTYPE_I8, {1, 2}, {3, 4});
  t.input("a_scale", OPCERT_DTYPE_F32, {2}, {0.5, 2}).input("b_scale", OPCERT_DTYPE_F32, {1}, {0.25});
  t.input("bias", OPCERT_DTYPE_BF16, {1}, {1}).output("c", OPCERT_DTYPE_BF16, {2, 1});
  const auto out = t.run();
  EXPECT_EQ(out[0].values, (std::vector<double>{0.125 * -5 + 1, 0.5 * -131 + 1}));
  // The int32 sum is exact: the magnitude is that of the fp32 epilogue's terms, |scaled sum| + |bias|,
  // not the scaled sum of |products| (docs/TOLERANCES.md#gemm_int8).
  EXPECT_EQ(out[0].magnitude, (std::vector<double>{0.125 * 5 + 1, 0.5 * 131 + 1}));
}

}  // namespace
}  // namespace opcert
