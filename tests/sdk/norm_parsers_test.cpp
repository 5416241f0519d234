// The rms_norm and layer_norm parsers (opcert/sdk/ops/rms_norm.h, layer_norm.h, norm.h) against
// docs/OPS.md: optional weight, bias (layer_norm) and fused residual, eps defaults, violations.
#include <gtest/gtest.h>
#include <opcert/sdk/ops/layer_norm.h>
#include <opcert/sdk/ops/rms_norm.h>

#include "sdk/call_fixture.h"

namespace opcert::sdk::test {
namespace {

constexpr int32_t kF16 = OPCERT_DTYPE_F16, kF32 = OPCERT_DTYPE_F32;

TEST(NormParsers, RmsNormPlainWithDefaultEps) {
  TestCall c;
  c.in("x", kF16, {3, 8}).out("y", kF16, {3, 8});
  const auto p = c.parse(parse_rms_norm);
  ASSERT_TRUE(p.ok) << p.reason;
  EXPECT_EQ(p.operands.kind, NormKind::kRms);
  EXPECT_EQ(p.operands.t, 3);
  EXPECT_EQ(p.operands.h, 8);
  EXPECT_EQ(p.operands.dtype, kF16);
  EXPECT_DOUBLE_EQ(p.operands.eps, 1e-6);
  EXPECT_FALSE(p.operands.weight || p.operands.residual || p.operands.residual_out);
}

TEST(NormParsers, LayerNormWithEverything) {
  TestCall c;
  c.in("x", kF32, {3, 8}).in("weight", kF32, {8}).in("bias", kF32, {8}).in("residual", kF32, {3, 8});
  c.out("y", kF32, {3, 8}).out("residual_out", kF32, {3, 8});
  const auto p = c.parse(parse_layer_norm);
  ASSERT_TRUE(p.ok) << p.reason;
  EXPECT_EQ(p.operands.kind, NormKind::kLayer);
  EXPECT_DOUBLE_EQ(p.operands.eps, 1e-5);
  EXPECT_TRUE(p.operands.weight && p.operands.bias && p.operands.residual && p.operands.residual_out);
  TestCall eps;
  eps.in("x", kF32, {3, 8}).out("y", kF32, {3, 8}).attr("eps", 1e-3);
  EXPECT_DOUBLE_EQ(eps.parse(parse_layer_norm).operands.eps, 1e-3);
}

TEST(NormParsers, Violations) {
  auto rms = [](TestCall c) { return c.parse(parse_rms_norm).reason; };
  auto layer = [](TestCall c) { return c.parse(parse_layer_norm).reason; };
  TestCall bias;
  bias.in("x", kF32, {2, 8}).in("bias", kF32, {8}).out("y", kF32, {2, 8});
  EXPECT_EQ(rms(std::move(bias)), "rms_norm has no input 'bias' (layer_norm has)");
  TestCall no_residual_out;
  no_residual_out.in("x", kF32, {2, 8}).in("residual", kF32, {2, 8}).out("y", kF32, {2, 8});
  EXPECT_EQ(rms(std::move(no_residual_out)), "missing output 'residual_out' (required with input 'residual')");
  TestCall no_residual;
  no_residual.in("x", kF32, {2, 8}).out("y", kF32, {2, 8}).out("residual_out", kF32, {2, 8});
  EXPECT_EQ(layer(std::move(no_residual)), "output 'residual_out' is given without input 'residual'");
  TestCall short_weight;
  short_weight.in("x", kF32, {2, 8}).in("weight", kF32, {7}).out("y", kF32, {2, 8});
  EXPECT_EQ(rms(std::move(short_weight)), "weight has shape [7], expected [H] = [8]");
  TestCall weight_dtype;
  weight_dtype.in("x", kF32, {2, 8}).in("weight", kF16, {8}).out("y", kF32, {2, 8});
  EXPECT_EQ(layer(std::move(weight_dtype)), "weight is fp16, expected fp32 (the dtype of x)");
  TestCall rank3;
  rank3.in("x", kF32, {2, 3, 8}).out("y", kF32, {2, 3, 8});
  EXPECT_EQ(rms(std::move(rank3)), "x must be 2-D [T, H] (got [2, 3, 8])");
  TestCall y_shape;
  y_shape.in("x", kF32, {2, 8}).out("y", kF32, {8, 2});
  EXPECT_EQ(layer(std::move(y_shape)), "y has shape [8, 2], expected the shape of x = [2, 8]");
  TestCall residual_shape;
  residual_shape.in("x", kF32, {2, 8}).in("residual", kF32, {1, 8}).out("y", kF32, {2, 8}).out("residual_out", kF32, {2, 8});
  EXPECT_EQ(rms(std::move(residual_shape)), "residual has shape [1, 8], expected the shape of x = [2, 8]");
  TestCall int_x;
  int_x.in("x", OPCERT_DTYPE_I8, {2, 8}).out("y", OPCERT_DTYPE_I8, {2, 8});
  EXPECT_EQ(rms(std::move(int_x)), "x must be fp32/fp16/bf16 (got int8)");
  TestCall eps;
  eps.in("x", kF32, {2, 8}).out("y", kF32, {2, 8}).attr("eps", "small");
  EXPECT_EQ(rms(std::move(eps)), "attribute 'eps' must be a float (got a string)");
}

}  // namespace
}  // namespace opcert::sdk::test
