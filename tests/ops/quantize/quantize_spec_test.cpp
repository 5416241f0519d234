// The quantize case builder (harness/ops/quantize/quantize_spec.cpp): suite parameters -> the
// operands of docs/OPS.md#quantize (names, shapes, dtypes), attributes, fills; and a clear
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

TEST(CaseBuilder, QuantizeOutputs) {
  const auto tok = build("quantize", {{"m", 5}, {"k", 9}, {"in_dtype", "fp16"}, {"out_dtype", "e4m3"}});
  EXPECT_EQ(names(tok.outputs), (Names{"q", "scale"}));
  EXPECT_EQ(output(tok, "q").dtype, OPCERT_DTYPE_F8_E4M3FN);
  EXPECT_EQ(output(tok, "q").shape, (Shape{5, 9}));
  EXPECT_EQ(output(tok, "scale").shape, (Shape{5}));
  EXPECT_EQ(output(tok, "scale").dtype, OPCERT_DTYPE_F32);
  EXPECT_EQ(input(tok, "x").fill.hi, 8.0);
  const auto ten = build("quantize", {{"m", 5}, {"k", 9}, {"in_dtype", "fp16"}, {"out_dtype", "int8"}, {"granularity", "tensor"}});
  EXPECT_EQ(output(ten, "scale").shape, (Shape{1}));
  EXPECT_EQ(std::get<std::string>(ten.attrs.at("granularity")), "tensor");
  EXPECT_NE(error_of("quantize", {{"m", 5}, {"k", 9}, {"in_dtype", "fp16"}, {"out_dtype", "int8"}, {"specials", {"nan"}}})
                .find("outside the quantize contract"),
            std::string::npos);
}

}  // namespace
}  // namespace opcert
