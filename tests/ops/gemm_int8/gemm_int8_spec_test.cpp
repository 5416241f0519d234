// The gemm_int8 case builder (harness/ops/gemm_int8/gemm_int8_spec.cpp): suite parameters -> the
// operands of docs/OPS.md#gemm_int8 (names, shapes, dtypes), attributes, fills; and a clear
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
using test::names;
using test::Names;
using test::output;
using test::Shape;

Case build(const std::string& op, const json& params) { return test::build_case(op, params); }

TEST(CaseBuilder, GemmInt8Operands) {
  const auto i32 = build("gemm_int8", {{"m", 5}, {"n", 6}, {"k", 7}});
  EXPECT_EQ(names(i32.inputs), (Names{"a", "b"}));
  EXPECT_EQ(input(i32, "a").dtype, OPCERT_DTYPE_I8);
  EXPECT_EQ(input(i32, "a").fill.kind, FillSpec::Kind::kExact);
  EXPECT_EQ(input(i32, "a").fill.lo, -127.0);
  EXPECT_EQ(input(i32, "a").fill.hi, 127.0);
  EXPECT_EQ(output(i32, "c").dtype, OPCERT_DTYPE_I32);
  const auto bf16 = build("gemm_int8", {{"m", 5}, {"n", 6}, {"k", 7}, {"out_dtype", "bf16"}, {"bias", true}});
  EXPECT_EQ(names(bf16.inputs), (Names{"a", "b", "a_scale", "b_scale", "bias"}));
  EXPECT_EQ(input(bf16, "a_scale").shape, (Shape{5}));
  EXPECT_EQ(input(bf16, "b_scale").shape, (Shape{6}));
  EXPECT_EQ(input(bf16, "bias").dtype, OPCERT_DTYPE_BF16);
  EXPECT_NE(error_of("gemm_int8", {{"m", 5}, {"n", 6}, {"k", 7}, {"bias", true}}).find("'bias' needs a dequantized"),
            std::string::npos);
  EXPECT_NE(error_of("gemm_int8", {{"m", 1}, {"n", 1}, {"k", 131073}}).find("'k' must be at most 131072"), std::string::npos);
}

}  // namespace
}  // namespace opcert
