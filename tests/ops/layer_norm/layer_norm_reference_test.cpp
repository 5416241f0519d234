// The layer_norm reference on a case worked by hand.
#include <gtest/gtest.h>

#include "ops/reference_test_util.h"

namespace opcert {
namespace {

using testing::CaseUnderTest;
using testing::expect_values;

TEST(LayerNormReference, HandWorked) {
  // x = [1, 2, 3, 6]: mu 3, var (4 + 1 + 0 + 9) / 4 = 3.5, eps 0.5 -> 1/2; w 2, b 1:
  // y = [-2, -1, 0, 3] / 2 * 2 + 1 = [-1, 0, 1, 4]; magnitude (|r| + mean|r|) / 2 * 2 + 1, mean|r| 3.
  CaseUnderTest t("layer_norm");
  t.input("x", OPCERT_DTYPE_F32, {1, 4}, {1, 2, 3, 6});
  t.input("weight", OPCERT_DTYPE_F32, {4}, {2, 2, 2, 2}).input("bias", OPCERT_DTYPE_F32, {4}, {1, 1, 1, 1});
  t.output("y", OPCERT_DTYPE_F32, {1, 4}).attr("eps", 0.5);
  const auto out = t.run();
  expect_values(out[0].values, {-1, 0, 1, 4}, 1e-15, "y");
  expect_values(out[0].magnitude, {5, 6, 7, 10}, 1e-15, "y magnitude");
}

}  // namespace
}  // namespace opcert
