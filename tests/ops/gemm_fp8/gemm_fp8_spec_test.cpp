// The gemm_fp8 case builder (harness/ops/gemm_fp8/gemm_fp8_spec.cpp): suite parameters -> the
// operands of docs/OPS.md#gemm_fp8 (names, shapes, dtypes), attributes, fills; and a clear
// std::invalid_argument for every bad parameter.
#include "ops/op_test_support.h"

#include <gtest/gtest.h>

#include <cmath>
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

TEST(CaseBuilder, GemmFp8BlockScaleShapes) {
  const auto c = build("gemm_fp8", {{"m", 5}, {"n", 200}, {"k", 300}, {"scaling", "block"}, {"a_dtype", "e5m2"},
                                    {"out_dtype", "fp16"}, {"bias", true}});
  EXPECT_EQ(names(c.inputs), (Names{"a", "b", "a_scale", "b_scale", "bias"}));
  EXPECT_EQ(input(c, "a").dtype, OPCERT_DTYPE_F8_E5M2);
  EXPECT_EQ(input(c, "b").dtype, OPCERT_DTYPE_F8_E4M3FN);  // default
  EXPECT_EQ(input(c, "a_scale").shape, (Shape{5, 3}));       // ceil(300/128)
  EXPECT_EQ(input(c, "b_scale").shape, (Shape{2, 3}));       // ceil(200/128) x ceil(300/128)
  EXPECT_EQ(input(c, "a_scale").dtype, OPCERT_DTYPE_F32);
  EXPECT_EQ(input(c, "bias").dtype, OPCERT_DTYPE_F16);
  EXPECT_EQ(output(c, "c").dtype, OPCERT_DTYPE_F16);
  EXPECT_EQ(output(c, "c").shape, (Shape{5, 200}));
  EXPECT_EQ(std::get<std::string>(c.attrs.at("scaling")), "block");
  EXPECT_EQ(input(c, "a").fill.hi, 1000.0);  // e5m2 range
  EXPECT_EQ(input(c, "b").fill.hi, 240.0);   // e4m3 range
}

TEST(CaseBuilder, GemmFp8TensorAndChannelScales) {
  const auto t = build("gemm_fp8", {{"m", 5}, {"n", 6}, {"k", 7}});
  EXPECT_EQ(input(t, "a_scale").shape, (Shape{1}));
  EXPECT_EQ(input(t, "b_scale").shape, (Shape{1}));
  EXPECT_EQ(output(t, "c").dtype, OPCERT_DTYPE_BF16);
  EXPECT_TRUE(t.attrs.empty());
  const auto ch = build("gemm_fp8", {{"m", 5}, {"n", 6}, {"k", 7}, {"scaling", "channel"}});
  EXPECT_EQ(input(ch, "a_scale").shape, (Shape{5}));
  EXPECT_EQ(input(ch, "b_scale").shape, (Shape{6}));
}

TEST(CaseBuilder, GemmFp8ExactUsesPowerOfTwoScales) {
  const auto c = build("gemm_fp8", {{"m", 3}, {"n", 130}, {"k", 260}, {"scaling", "block"}, {"fill", "exact"}});
  const auto& s = input(c, "b_scale").fill;
  EXPECT_EQ(s.kind, FillSpec::Kind::kValues);
  ASSERT_EQ(s.values.size(), 6u);  // [2, 3]
  for (double v : s.values) {
    int e = 0;
    EXPECT_EQ(std::frexp(v, &e), 0.5) << v;  // a power of two
  }
  EXPECT_EQ(input(c, "a").fill.kind, FillSpec::Kind::kExact);
  EXPECT_EQ(input(c, "a_scale").fill.values.size(), 9u);  // [3, 3]
}

TEST(CaseBuilder, GemmFp8RejectsInfinityInE4m3) {
  EXPECT_NE(error_of("gemm_fp8", {{"m", 5}, {"n", 6}, {"k", 7}, {"specials", {"inf"}}}).find("no infinity"), std::string::npos);
  EXPECT_EQ(error_of("gemm_fp8", {{"m", 5}, {"n", 6}, {"k", 7}, {"a_dtype", "e5m2"}, {"specials", {"inf"}}}), "");
}

}  // namespace
}  // namespace opcert
