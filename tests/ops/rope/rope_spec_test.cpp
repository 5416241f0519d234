// The rope case builder (harness/ops/rope/rope_spec.cpp): suite parameters -> the operands of
// docs/OPS.md#rope (names, shapes, dtypes), attributes, fills; and a clear std::invalid_argument
// for every bad parameter.
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

TEST(CaseBuilder, RopeWithPositions) {
  const auto c = build("rope", {{"dtype", "bf16"}, {"b", 2}, {"s", 5}, {"hq", 4}, {"hk", 2}, {"d", 64}, {"rotary_dim", 32},
                                {"positions", true}, {"style", "interleaved"}, {"base", 500000}});
  EXPECT_EQ(names(c.inputs), (Names{"q", "k", "cos", "sin", "positions"}));
  EXPECT_EQ(input(c, "q").shape, (Shape{2, 5, 4, 64}));
  EXPECT_EQ(input(c, "k").shape, (Shape{2, 5, 2, 64}));
  EXPECT_EQ(input(c, "cos").shape, (Shape{5, 16}));  // P defaults to s; R/2 columns
  EXPECT_EQ(input(c, "cos").fill.kind, FillSpec::Kind::kRopeCos);
  EXPECT_EQ(input(c, "sin").fill.kind, FillSpec::Kind::kRopeSin);
  EXPECT_EQ(input(c, "sin").fill.base, 500000.0);
  const auto& pos = input(c, "positions");
  EXPECT_EQ(pos.dtype, OPCERT_DTYPE_I32);
  EXPECT_EQ(pos.shape, (Shape{2, 5}));
  ASSERT_EQ(pos.fill.values.size(), 10u);
  for (double p : pos.fill.values) EXPECT_TRUE(p >= 0 && p < 5 && p == std::floor(p)) << p;
  EXPECT_EQ(pos.fill.values.back(), 4.0);  // P - 1 always read
  EXPECT_EQ(names(c.outputs), (Names{"q_out", "k_out"}));
  EXPECT_EQ(output(c, "k_out").shape, (Shape{2, 5, 2, 64}));
  EXPECT_EQ(std::get<int64_t>(c.attrs.at("rotary_dim")), 32);
  EXPECT_EQ(std::get<std::string>(c.attrs.at("style")), "interleaved");
}

TEST(CaseBuilder, RopeThdWithoutK) {
  const auto c = build("rope", {{"dtype", "fp32"}, {"layout", "thd"}, {"t", 7}, {"hq", 3}, {"hk", 0}, {"d", 8}, {"max_position", 10}});
  EXPECT_EQ(names(c.inputs), (Names{"q", "cos", "sin"}));
  EXPECT_EQ(input(c, "q").shape, (Shape{7, 3, 8}));
  EXPECT_EQ(input(c, "cos").shape, (Shape{10, 4}));
  EXPECT_EQ(names(c.outputs), (Names{"q_out"}));
  EXPECT_NE(error_of("rope", {{"dtype", "fp32"}, {"layout", "thd"}, {"t", 7}, {"hq", 3}, {"d", 8}, {"max_position", 6}})
                .find("'max_position' (6) must be >= the sequence length (7)"),
            std::string::npos);
  EXPECT_NE(error_of("rope", {{"dtype", "fp32"}, {"s", 7}, {"hq", 3}, {"d", 8}, {"rotary_dim", 3}}).find("rotary_dim"), std::string::npos);
}

}  // namespace
}  // namespace opcert
