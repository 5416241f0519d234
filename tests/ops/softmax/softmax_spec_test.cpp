// The softmax case builder (harness/ops/softmax/softmax_spec.cpp): suite parameters -> the operands
// of docs/OPS.md#softmax (names, shapes, dtypes), attributes, fills; and a clear
// std::invalid_argument for every bad parameter.
#include "ops/op_test_support.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

namespace opcert {
namespace {

using nlohmann::json;
using test::error_of;
using test::input;
using test::output;
using test::Shape;

Case build(const std::string& op, const json& params) { return test::build_case(op, params); }

TEST(CaseBuilder, SoftmaxShapes) {
  const auto c = build("softmax", {{"dtype", "bf16"}, {"shape", {2, 3, 5}}});
  EXPECT_EQ(input(c, "x").shape, (Shape{2, 3, 5}));
  EXPECT_EQ(output(c, "y").shape, (Shape{2, 3, 5}));
  EXPECT_EQ(output(c, "y").dtype, OPCERT_DTYPE_BF16);
  EXPECT_EQ(input(c, "x").fill.lo, -8.0);
  EXPECT_EQ(input(build("softmax", {{"dtype", "fp32"}, {"rows", 4}, {"n", 9}}), "x").shape, (Shape{4, 9}));
  EXPECT_EQ(input(build("softmax", {{"dtype", "fp32"}, {"n", 9}}), "x").shape, (Shape{1, 9}));
  EXPECT_NE(error_of("softmax", {{"dtype", "fp32"}, {"shape", {4}}, {"n", 4}}).find("not both"), std::string::npos);
}

}  // namespace
}  // namespace opcert
