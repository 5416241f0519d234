// The gemm_int8 case builder (harness/ops/gemm_int8/gemm_int8_spec.cpp): suite parameters -> the
// operands of docs/OPS.md#gemm_int8 (names, shapes, dtypes), attributes, fills; and a clear
// std::invalid_argument for every bad parameter.
#include "ops/op_test_support.h"

#include <gtest/gtest.h>

#include <algorithm>
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

// Patterns (docs/SUITES.md): operands whose exact int32 sums leave fp32's exact integers, so that an
// fp32 or int16 accumulator fails.
TEST(CaseBuilder, GemmInt8PatternsPassTwoToThe24) {
  const auto same = build("gemm_int8", {{"m", 2}, {"n", 2}, {"k", 1041}, {"pattern", "same_sign"}, {"out_dtype", "fp16"}});
  EXPECT_EQ(same.fill_mode, FillMode::kRandom);  // judged by the epilogue's bound: acc past 2^24 may round into fp32
  const auto& a = input(same, "a").fill.values;
  const auto& b = input(same, "b").fill.values;
  ASSERT_EQ(a.size(), 2u * 1041u);
  EXPECT_EQ(a[0] * b[0] * 1041, 16790289.0);  // 127 · 127 · 1041 > 2^24
  EXPECT_EQ(a[1041] * b[1041] * 1041, 1041.0 * 16384.0);  // (-128)²
  // Dequantized, |sum| · a_scale · b_scale stays in fp16's range.
  const double top = 1041.0 * 16384.0 * input(same, "a_scale").fill.values[0] * input(same, "b_scale").fill.values[0];
  EXPECT_LT(top, 65504.0);

  const int64_t k = 8192;
  const auto cross = build("gemm_int8", {{"m", 2}, {"n", 8}, {"k", k}, {"pattern", "crossing"}});
  const auto& ca = input(cross, "a").fill.values;
  const auto& cb = input(cross, "b").fill.values;
  double sum = 0.0, peak = 0.0;
  for (int64_t j = 0; j < k; ++j) {
    sum += ca[static_cast<std::size_t>(j)] * cb[static_cast<std::size_t>(7 * k + j)];
    peak = std::max(peak, std::fabs(sum));
  }
  EXPECT_GT(peak, std::ldexp(1.0, 25));  // fp32's spacing is 4 up there
  EXPECT_LT(std::fabs(sum), 65536.0);    // and the sum comes back
  EXPECT_NE(sum, 0.0);

  EXPECT_NE(error_of("gemm_int8", {{"m", 1}, {"n", 1}, {"k", 1040}, {"pattern", "same_sign"}}).find("needs k in [1041, 131072)"),
            std::string::npos);
  EXPECT_NE(error_of("gemm_int8", {{"m", 1}, {"n", 1}, {"k", 131072}, {"pattern", "same_sign"}}).find("needs k in"),
            std::string::npos);
  EXPECT_NE(error_of("gemm_int8", {{"m", 1}, {"n", 1}, {"k", 4000}, {"pattern", "crossing"}}).find("needs k in [4096"),
            std::string::npos);
  EXPECT_NE(error_of("gemm_int8", {{"m", 1}, {"n", 1}, {"k", 4096}, {"pattern", "crossing"}, {"fill", "exact"}})
                .find("drop 'fill'"),
            std::string::npos);
  EXPECT_NE(error_of("gemm_int8", {{"m", 1}, {"n", 1}, {"k", 4096}, {"pattern", "ramp"}}).find("'pattern' must be one of"),
            std::string::npos);
}

}  // namespace
}  // namespace opcert
