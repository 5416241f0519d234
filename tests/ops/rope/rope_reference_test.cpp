// quantize, rms_norm, layer_norm, rope and softmax references on cases worked by hand, and the
// dispatcher's contract (output order, errors).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <stdexcept>

#include "ops/reference_test_util.h"

namespace opcert {
namespace {

using testing::CaseUnderTest;
using testing::expect_values;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

TEST(QuantizeReference, PerTokenInt8) {
  // Row 0: amax 4, scale 4/127; q = x divided by the fp32-rounded scale. Row 1: all zero.
  CaseUnderTest t("quantize");
  t.input("x", OPCERT_DTYPE_F32, {2, 4}, {1, -2, 0.5, 4, 0, 0, 0, 0});
  t.output("q", OPCERT_DTYPE_I8, {2, 4}).output("scale", OPCERT_DTYPE_F32, {2});
  const auto out = t.run();
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].name, "q");
  EXPECT_EQ(out[1].name, "scale");
  EXPECT_EQ(out[1].values, (std::vector<double>{4.0 / 127.0, 0.0}));
  const double held = static_cast<float>(4.0 / 127.0);
  EXPECT_NE(held, 4.0 / 127.0);  // the case exercises the fp32 rounding of the scale
  expect_values(out[0].values, {1 / held, -2 / held, 0.5 / held, std::min(4 / held, 127.0), 0, 0, 0, 0}, 0, "q");
  EXPECT_NEAR(out[0].values[0], 31.75, 1e-5);
  EXPECT_LE(out[0].values[3], 127.0);
  EXPECT_GE(out[0].values[3], 126.999);
  EXPECT_EQ(out[0].magnitude[1], std::fabs(out[0].values[1]));
}

TEST(QuantizeReference, PerTensorFp8) {
  // amax over the whole tensor is 896 = 2 * 448: scale 2 (exact), q = x / 2.
  CaseUnderTest t("quantize");
  t.input("x", OPCERT_DTYPE_BF16, {2, 2}, {1, -896, 3, 10});
  t.output("q", OPCERT_DTYPE_F8_E4M3FN, {2, 2}).output("scale", OPCERT_DTYPE_F32, {1}).attr("granularity", std::string("tensor"));
  const auto out = t.run();
  EXPECT_EQ(out[1].values, std::vector<double>{2.0});
  EXPECT_EQ(out[0].values, (std::vector<double>{0.5, -448, 1.5, 5}));
  testing::expect_sample_matches_whole(t, 3);
}

TEST(QuantizeReference, SampleMatchesWhole) {
  CaseUnderTest t("quantize");
  t.input("x", OPCERT_DTYPE_F16, {9, 13}, testing::pseudo_random(9 * 13, 5, -3, 3));
  t.output("q", OPCERT_DTYPE_F8_E5M2, {9, 13}).output("scale", OPCERT_DTYPE_F32, {9});
  testing::expect_sample_matches_whole(t, 4);
}

TEST(RmsNormReference, HandWorked) {
  // x = [1, 1, 1, 5]: mean square 7, eps 2 -> rsqrt(9) = 1/3; weight [3, 3, 3, 0.6] -> 1.
  CaseUnderTest t("rms_norm");
  t.input("x", OPCERT_DTYPE_F32, {1, 4}, {1, 1, 1, 5}).input("weight", OPCERT_DTYPE_F32, {4}, {3, 3, 3, 0.6});
  t.output("y", OPCERT_DTYPE_F32, {1, 4}).attr("eps", 2.0);
  const auto out = t.run();
  const double w3 = static_cast<float>(0.6);
  expect_values(out[0].values, {1, 1, 1, 5.0 / 3.0 * w3}, 1e-15, "y");
  expect_values(out[0].magnitude, out[0].values, 0, "y magnitude");
}

TEST(RmsNormReference, NormalisesTheRoundedResidual) {
  // bf16: 1 + 2^-8 rounds (tie to even) to 1, so r = [1, 1] and y = [1, 1] with eps 0;
  // residual_out is the exact sum.
  CaseUnderTest t("rms_norm");
  t.input("x", OPCERT_DTYPE_BF16, {1, 2}, {1, 1}).input("residual", OPCERT_DTYPE_BF16, {1, 2}, {std::ldexp(1.0, -8), 0});
  t.output("y", OPCERT_DTYPE_BF16, {1, 2}).output("residual_out", OPCERT_DTYPE_BF16, {1, 2}).attr("eps", 0.0);
  const auto out = t.run();
  ASSERT_EQ(out.size(), 2u);
  expect_values(out[0].values, {1, 1}, 1e-15, "y");
  EXPECT_EQ(out[1].name, "residual_out");
  EXPECT_EQ(out[1].values, (std::vector<double>{1 + std::ldexp(1.0, -8), 1}));
  EXPECT_EQ(out[1].magnitude, (std::vector<double>{1 + std::ldexp(1.0, -8), 1}));
}

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

TEST(NormReference, SampleMatchesWhole) {
  for (const std::string op : {"rms_norm", "layer_norm"}) {
    CaseUnderTest t(op);
    t.input("x", OPCERT_DTYPE_BF16, {6, 10}, testing::pseudo_random(60, 31));
    t.input("weight", OPCERT_DTYPE_BF16, {10}, testing::pseudo_random(10, 32));
    t.input("residual", OPCERT_DTYPE_BF16, {6, 10}, testing::pseudo_random(60, 33));
    t.output("y", OPCERT_DTYPE_BF16, {6, 10}).output("residual_out", OPCERT_DTYPE_BF16, {6, 10});
    testing::expect_sample_matches_whole(t, 7);
  }
}

// cos = 0, sin = 1 turns each pair (x1, x2) into (-x2, x1).
CaseUnderTest quarter_turn(const std::string& style, int64_t rotary_dim) {
  CaseUnderTest t("rope");
  t.input("q", OPCERT_DTYPE_F32, {1, 1, 4}, {1, 2, 3, 4});
  t.input("cos", OPCERT_DTYPE_F32, {1, rotary_dim / 2}, std::vector<double>(static_cast<std::size_t>(rotary_dim / 2), 0.0));
  t.input("sin", OPCERT_DTYPE_F32, {1, rotary_dim / 2}, std::vector<double>(static_cast<std::size_t>(rotary_dim / 2), 1.0));
  t.output("q_out", OPCERT_DTYPE_F32, {1, 1, 4}).attr("style", style).attr("rotary_dim", rotary_dim);
  return t;
}

TEST(RopeReference, QuarterTurnByHand) {
  auto split = quarter_turn("split_half", 4).run();
  EXPECT_EQ(split[0].values, (std::vector<double>{-3, -4, 1, 2}));
  EXPECT_EQ(split[0].magnitude, (std::vector<double>{3, 4, 1, 2}));
  EXPECT_EQ(quarter_turn("interleaved", 4).run()[0].values, (std::vector<double>{-2, 1, -4, 3}));
  // Partial rotary dim 2: only (x0, x1) turn, x2 and x3 pass through.
  auto partial = quarter_turn("split_half", 2).run();
  EXPECT_EQ(partial[0].values, (std::vector<double>{-2, 1, 3, 4}));
  EXPECT_EQ(partial[0].magnitude, (std::vector<double>{2, 1, 3, 4}));
}

TEST(RopeReference, PositionsPickTheTableRow) {
  // Row 0 is the identity (cos 1, sin 0), row 1 a quarter turn. Token 0 at position 1, token 1
  // at position 0. k has one head.
  CaseUnderTest t("rope");
  t.input("q", OPCERT_DTYPE_F32, {2, 1, 2}, {1, 2, 3, 4}).input("k", OPCERT_DTYPE_F32, {2, 1, 2}, {5, 6, 7, 8});
  t.input("cos", OPCERT_DTYPE_F32, {2, 1}, {1, 0}).input("sin", OPCERT_DTYPE_F32, {2, 1}, {0, 1});
  t.input("positions", OPCERT_DTYPE_I32, {2}, {1, 0});
  t.output("q_out", OPCERT_DTYPE_F32, {2, 1, 2}).output("k_out", OPCERT_DTYPE_F32, {2, 1, 2});
  const auto out = t.run();
  EXPECT_EQ(out[0].values, (std::vector<double>{-2, 1, 3, 4}));
  EXPECT_EQ(out[1].name, "k_out");
  EXPECT_EQ(out[1].values, (std::vector<double>{-6, 5, 7, 8}));
}

TEST(RopeReference, BshdWithoutPositionsUsesTheSequenceIndex) {
  // B = 2, S = 2: tokens at s = 1 get the quarter turn in both batches.
  CaseUnderTest t("rope");
  t.input("q", OPCERT_DTYPE_F32, {2, 2, 1, 2}, {1, 2, 1, 2, 1, 2, 1, 2});
  t.input("cos", OPCERT_DTYPE_F32, {2, 1}, {1, 0}).input("sin", OPCERT_DTYPE_F32, {2, 1}, {0, 1});
  t.output("q_out", OPCERT_DTYPE_F32, {2, 2, 1, 2});
  EXPECT_EQ(t.run()[0].values, (std::vector<double>{1, 2, -2, 1, 1, 2, -2, 1}));
}

TEST(RopeReference, PositionOutsideTheTableIsRejected) {
  CaseUnderTest t("rope");
  t.input("q", OPCERT_DTYPE_F32, {1, 1, 2}, {1, 2}).input("cos", OPCERT_DTYPE_F32, {1, 1}, {1});
  t.input("sin", OPCERT_DTYPE_F32, {1, 1}, {0}).input("positions", OPCERT_DTYPE_I32, {1}, {1});
  t.output("q_out", OPCERT_DTYPE_F32, {1, 1, 2});
  EXPECT_THROW(t.run(), std::invalid_argument);
}

TEST(RopeReference, SampleMatchesWhole) {
  CaseUnderTest t("rope");
  const int64_t b = 2, s = 3, hq = 2, hk = 1, d = 8, p = 4;
  t.input("q", OPCERT_DTYPE_BF16, {b, s, hq, d}, testing::pseudo_random(b * s * hq * d, 41));
  t.input("k", OPCERT_DTYPE_BF16, {b, s, hk, d}, testing::pseudo_random(b * s * hk * d, 42));
  t.input("cos", OPCERT_DTYPE_F32, {p, 3}, testing::pseudo_random(p * 3, 43));
  t.input("sin", OPCERT_DTYPE_F32, {p, 3}, testing::pseudo_random(p * 3, 44));
  t.input("positions", OPCERT_DTYPE_I32, {b, s}, {3, 0, 2, 1, 1, 3});
  t.output("q_out", OPCERT_DTYPE_BF16, {b, s, hq, d}).output("k_out", OPCERT_DTYPE_BF16, {b, s, hk, d});
  t.attr("style", std::string("interleaved")).attr("rotary_dim", int64_t{6});
  testing::expect_sample_matches_whole(t, 5);
}

TEST(SoftmaxReference, HandWorkedRowsAndSpecialValues) {
  CaseUnderTest t("softmax");
  t.input("x", OPCERT_DTYPE_F32, {6, 3},
          {0, 0, 0,            // uniform
           1, 2, 3,            // e^x / sum
           -kInf, 0, -kInf,    // only one finite
           kNaN, 0, 0,         // NaN row
           kInf, 0, 0,         // +inf row
           -kInf, -kInf, -kInf});
  t.output("y", OPCERT_DTYPE_F32, {6, 3});
  const auto out = t.run();
  const double z = std::exp(1.0) + std::exp(2.0) + std::exp(3.0);
  expect_values(out[0].values,
                {1.0 / 3, 1.0 / 3, 1.0 / 3, std::exp(1.0) / z, std::exp(2.0) / z, std::exp(3.0) / z, 0, 1, 0, kNaN, kNaN,
                 kNaN, kNaN, kNaN, kNaN, kNaN, kNaN, kNaN},
                1e-15, "y");
  ASSERT_EQ(out[0].condition.size(), 18u);
  EXPECT_DOUBLE_EQ(out[0].condition[0], std::log(3.0));
  EXPECT_DOUBLE_EQ(out[0].condition[3], 3 + std::log(3.0));
  EXPECT_DOUBLE_EQ(out[0].condition[6], std::log(3.0));  // -inf is not an exp argument
}

TEST(SoftmaxReference, SampleMatchesWhole) {
  CaseUnderTest t("softmax");
  t.input("x", OPCERT_DTYPE_F16, {2, 3, 11}, testing::pseudo_random(66, 51, -8, 8));
  t.output("y", OPCERT_DTYPE_F16, {2, 3, 11});
  testing::expect_sample_matches_whole(t, 4);
}

TEST(ComputeReference, ReturnsOutputsInCaseOrder) {
  CaseUnderTest t("quantize");
  t.input("x", OPCERT_DTYPE_F32, {1, 2}, {1, 2});
  t.output("scale", OPCERT_DTYPE_F32, {1}).output("q", OPCERT_DTYPE_I8, {1, 2});
  const auto out = t.run();
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].name, "scale");
  EXPECT_EQ(out[1].name, "q");
}

TEST(ComputeReference, RejectsWhatTheContractDoesNotDefine) {
  CaseUnderTest unknown("no_such_op");
  EXPECT_THROW(unknown.run(), std::invalid_argument);
  CaseUnderTest collective("all_reduce");
  EXPECT_THROW(collective.run(), std::invalid_argument);
  CaseUnderTest missing("gemm");
  missing.input("a", OPCERT_DTYPE_F32, {1, 1}, {1}).output("c", OPCERT_DTYPE_F32, {1, 1});
  EXPECT_THROW(missing.run(), std::invalid_argument);
  CaseUnderTest bad_sample = [] {
    CaseUnderTest g("gemm");
    g.input("a", OPCERT_DTYPE_F32, {1, 1}, {1}).input("b", OPCERT_DTYPE_F32, {1, 1}, {1}).output("c", OPCERT_DTYPE_F32, {1, 1});
    return g;
  }();
  EXPECT_THROW(bad_sample.run({{"c", {1}}}), std::invalid_argument);
  EXPECT_THROW(bad_sample.run({{"d", {0}}}), std::invalid_argument);
}

}  // namespace
}  // namespace opcert
