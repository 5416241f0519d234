// The quantize and softmax parsers (opcert/sdk/ops/quantize.h, softmax.h) against docs/OPS.md.
#include <gtest/gtest.h>
#include <opcert/sdk/ops/quantize.h>
#include <opcert/sdk/ops/softmax.h>

#include "sdk/call_fixture.h"

namespace opcert::sdk::test {
namespace {

constexpr int32_t kF32 = OPCERT_DTYPE_F32, kBf16 = OPCERT_DTYPE_BF16;

TEST(QuantizeParser, PerTokenByDefaultAndPerTensor) {
  TestCall token;
  token.in("x", kBf16, {3, 10}).out("q", OPCERT_DTYPE_I8, {3, 10}).out("scale", kF32, {3});
  const auto t = token.parse(parse_quantize);
  ASSERT_TRUE(t.ok) << t.reason;
  EXPECT_EQ(t.operands.granularity, QuantGranularity::kToken);
  EXPECT_EQ(t.operands.m, 3);
  EXPECT_EQ(t.operands.k, 10);
  TestCall tensor;
  tensor.in("x", kF32, {3, 10}).out("q", OPCERT_DTYPE_F8_E5M2, {3, 10}).out("scale", kF32, {1}).attr("granularity", "tensor");
  const auto p = tensor.parse(parse_quantize);
  ASSERT_TRUE(p.ok) << p.reason;
  EXPECT_EQ(p.operands.granularity, QuantGranularity::kTensor);
}

TEST(QuantizeParser, QmaxOfEachQuantizedDtype) {
  EXPECT_EQ(quantize_qmax(OPCERT_DTYPE_I8), 127.0f);
  EXPECT_EQ(quantize_qmax(OPCERT_DTYPE_F8_E4M3FN), 448.0f);
  EXPECT_EQ(quantize_qmax(OPCERT_DTYPE_F8_E5M2), 57344.0f);
  EXPECT_EQ(quantize_qmax(kF32), 0.0f);
}

TEST(QuantizeParser, Violations) {
  auto reason = [](TestCall c) { return c.parse(parse_quantize).reason; };
  TestCall scale_per_tensor;
  scale_per_tensor.in("x", kF32, {3, 10}).out("q", OPCERT_DTYPE_I8, {3, 10}).out("scale", kF32, {3}).attr("granularity", "tensor");
  EXPECT_EQ(reason(std::move(scale_per_tensor)), "scale has shape [3], expected [1] for granularity \"tensor\"");
  TestCall scale_per_token;
  scale_per_token.in("x", kF32, {3, 10}).out("q", OPCERT_DTYPE_I8, {3, 10}).out("scale", kF32, {1});
  EXPECT_EQ(reason(std::move(scale_per_token)), "scale has shape [1], expected [M] = [3]");
  TestCall q_dtype;
  q_dtype.in("x", kF32, {3, 10}).out("q", OPCERT_DTYPE_I32, {3, 10}).out("scale", kF32, {3});
  EXPECT_EQ(reason(std::move(q_dtype)), "q must be int8/fp8_e4m3fn/fp8_e5m2 (got int32)");
  TestCall x_rank;
  x_rank.in("x", kF32, {30}).out("q", OPCERT_DTYPE_I8, {30}).out("scale", kF32, {1});
  EXPECT_EQ(reason(std::move(x_rank)), "x must be 2-D [M, K] (got [30])");
  TestCall q_shape;
  q_shape.in("x", kF32, {3, 10}).out("q", OPCERT_DTYPE_I8, {10, 3}).out("scale", kF32, {3});
  EXPECT_EQ(reason(std::move(q_shape)), "q has shape [10, 3], expected [M, K] = [3, 10]");
  TestCall granularity;
  granularity.in("x", kF32, {3, 10}).out("q", OPCERT_DTYPE_I8, {3, 10}).out("scale", kF32, {3}).attr("granularity", "row");
  EXPECT_EQ(reason(std::move(granularity)), "attribute 'granularity' must be one of \"token\", \"tensor\" (got \"row\")");
  TestCall no_scale;
  no_scale.in("x", kF32, {3, 10}).out("q", OPCERT_DTYPE_I8, {3, 10});
  EXPECT_EQ(reason(std::move(no_scale)), "missing output 'scale'");
}

TEST(SoftmaxParser, AnyRankOfAtLeastOne) {
  TestCall c;
  c.in("x", kBf16, {2, 3, 5}).out("y", kBf16, {2, 3, 5});
  const auto p = c.parse(parse_softmax);
  ASSERT_TRUE(p.ok) << p.reason;
  EXPECT_EQ(p.operands.rows, 6);
  EXPECT_EQ(p.operands.n, 5);
  EXPECT_EQ(p.operands.dtype, kBf16);
  TestCall vector;
  vector.in("x", kF32, {7}).out("y", kF32, {7});
  const auto v = vector.parse(parse_softmax);
  ASSERT_TRUE(v.ok) << v.reason;
  EXPECT_EQ(v.operands.rows, 1);
  TestCall empty;
  empty.in("x", kF32, {4, 0}).out("y", kF32, {4, 0});
  const auto e = empty.parse(parse_softmax);
  ASSERT_TRUE(e.ok) << e.reason;
  EXPECT_EQ(e.operands.rows, 0);
}

TEST(SoftmaxParser, Violations) {
  auto reason = [](TestCall c) { return c.parse(parse_softmax).reason; };
  TestCall scalar;
  scalar.in("x", kF32, {}).out("y", kF32, {});
  EXPECT_EQ(reason(std::move(scalar)), "x must have rank >= 1 [..., N] (got a 0-D scalar)");
  TestCall shape;
  shape.in("x", kF32, {2, 3}).out("y", kF32, {3, 2});
  EXPECT_EQ(reason(std::move(shape)), "y has shape [3, 2], expected the shape of x = [2, 3]");
  TestCall dtype;
  dtype.in("x", kF32, {2, 3}).out("y", OPCERT_DTYPE_F16, {2, 3});
  EXPECT_EQ(reason(std::move(dtype)), "y is fp16, expected fp32 (the dtype of x)");
  TestCall int_x;
  int_x.in("x", OPCERT_DTYPE_I32, {2, 3}).out("y", OPCERT_DTYPE_I32, {2, 3});
  EXPECT_EQ(reason(std::move(int_x)), "x must be fp32/fp16/bf16 (got int32)");
}

}  // namespace
}  // namespace opcert::sdk::test
