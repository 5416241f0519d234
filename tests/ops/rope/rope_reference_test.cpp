// The rope reference on cases worked by hand: styles, a partial rotary dim, positions, and sampled.
#include <gtest/gtest.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "ops/reference_test_util.h"

namespace opcert {
namespace {

using testing::CaseUnderTest;

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

}  // namespace
}  // namespace opcert
