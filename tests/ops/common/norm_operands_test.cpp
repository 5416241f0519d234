// The norms' operands (harness/ops/common/norm_operands.cpp, shared by rms_norm and layer_norm):
// suite parameters -> the operands of docs/OPS.md (names, shapes, dtypes), attributes, fills; and a
// clear std::invalid_argument for a parameter the op does not take.
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

TEST(CaseBuilder, NormsWithResidual) {
  const auto rms = build("rms_norm", {{"dtype", "fp16"}, {"t", 3}, {"h", 17}, {"residual", true}, {"eps", 1e-5}});
  EXPECT_EQ(names(rms.inputs), (Names{"x", "weight", "residual"}));
  EXPECT_EQ(names(rms.outputs), (Names{"y", "residual_out"}));
  EXPECT_EQ(input(rms, "weight").shape, (Shape{17}));
  EXPECT_EQ(input(rms, "residual").shape, (Shape{3, 17}));
  EXPECT_EQ(output(rms, "residual_out").dtype, OPCERT_DTYPE_F16);
  EXPECT_EQ(std::get<double>(rms.attrs.at("eps")), 1e-5);
  EXPECT_EQ(input(rms, "weight").fill.lo, 0.5);
  EXPECT_EQ(input(rms, "weight").fill.hi, 1.5);

  const auto ln = build("layer_norm", {{"dtype", "bf16"}, {"t", 3}, {"h", 8}, {"bias", true}, {"weight", false}});
  EXPECT_EQ(names(ln.inputs), (Names{"x", "bias"}));
  EXPECT_EQ(names(ln.outputs), (Names{"y"}));
  EXPECT_TRUE(ln.attrs.empty());
  EXPECT_NE(error_of("rms_norm", {{"dtype", "fp16"}, {"t", 3}, {"h", 17}, {"bias", true}}).find("unknown parameter 'bias' for rms_norm"),
            std::string::npos);
}

}  // namespace
}  // namespace opcert
