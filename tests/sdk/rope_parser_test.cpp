// The rope parser (opcert/sdk/ops/rope.h) against docs/OPS.md: BSHD and [T, H, D], k with its own
// heads, partial rotary dim, styles, positions; violations; positions checked at run time.
#include <gtest/gtest.h>
#include <opcert/sdk/ops/rope.h>

#include <vector>

#include "sdk/call_fixture.h"

namespace opcert::sdk::test {
namespace {

constexpr int32_t kBf16 = OPCERT_DTYPE_BF16, kF32 = OPCERT_DTYPE_F32, kI32 = OPCERT_DTYPE_I32;

TEST(RopeParser, BshdQOnlyWithDefaults) {
  TestCall c;
  c.in("q", kBf16, {2, 5, 4, 64}).in("cos", kF32, {8, 32}).in("sin", kF32, {8, 32}).out("q_out", kBf16, {2, 5, 4, 64});
  const auto p = c.parse(parse_rope);
  ASSERT_TRUE(p.ok) << p.reason;
  const RopeOperands& r = p.operands;
  EXPECT_EQ(r.style, RopeStyle::kSplitHalf);
  EXPECT_EQ(r.rotary_dim, 64) << "R = D by default";
  EXPECT_EQ(r.half(), 32);
  EXPECT_EQ(r.tokens, 10);
  EXPECT_EQ(r.seq_len, 5);
  EXPECT_EQ(r.hq, 4);
  EXPECT_EQ(r.hk, 0);
  EXPECT_EQ(r.head_dim, 64);
  EXPECT_EQ(r.table_rows, 8);
  EXPECT_FALSE(r.k || r.positions);
}

TEST(RopeParser, PackedWithKPositionsPartialRotaryAndInterleaved) {
  TestCall c;
  c.in("q", kF32, {6, 8, 128}).in("k", kF32, {6, 2, 128}).in("cos", kF32, {100, 32}).in("sin", kF32, {100, 32});
  c.in("positions", kI32, {6}).out("q_out", kF32, {6, 8, 128}).out("k_out", kF32, {6, 2, 128});
  c.attr("style", "interleaved").attr("rotary_dim", 64);
  const auto p = c.parse(parse_rope);
  ASSERT_TRUE(p.ok) << p.reason;
  const RopeOperands& r = p.operands;
  EXPECT_EQ(r.style, RopeStyle::kInterleaved);
  EXPECT_EQ(r.rotary_dim, 64);
  EXPECT_EQ(r.tokens, 6);
  EXPECT_EQ(r.seq_len, 6);
  EXPECT_EQ(r.hk, 2);
  EXPECT_TRUE(r.k && r.k_out && r.positions);
  TestCall none;  // R = 0 rotates nothing: even and within [0, D]
  none.in("q", kF32, {2, 1, 4}).in("cos", kF32, {2, 0}).in("sin", kF32, {2, 0}).out("q_out", kF32, {2, 1, 4}).attr("rotary_dim", 0);
  EXPECT_TRUE(none.parse(parse_rope).ok);
}

TEST(RopeParser, Violations) {
  auto reason = [](TestCall c) { return c.parse(parse_rope).reason; };
  auto base = [](std::vector<int64_t> q_shape, int64_t p = 8, int64_t half = 4) {
    TestCall c;
    c.in("q", kBf16, q_shape).in("cos", kF32, {p, half}).in("sin", kF32, {p, half}).out("q_out", kBf16, q_shape);
    return c;
  };
  EXPECT_EQ(reason(base({2, 8})), "q must be 4-D [B, S, Hq, D] or 3-D [T, Hq, D] (got [2, 8])");
  TestCall odd = base({2, 2, 8});
  odd.attr("rotary_dim", 6);
  EXPECT_EQ(reason(std::move(odd)), "cos has shape [8, 4], expected [P, R/2] with R = 6 = [8, 3]");
  TestCall too_wide = base({2, 2, 8});
  too_wide.attr("rotary_dim", 10);
  EXPECT_EQ(reason(std::move(too_wide)), "attribute 'rotary_dim' must be even and in [0, D] = [0, 8] (got 10)");
  TestCall odd_r = base({2, 2, 8});
  odd_r.attr("rotary_dim", 5);
  EXPECT_EQ(reason(std::move(odd_r)), "attribute 'rotary_dim' must be even and in [0, D] = [0, 8] (got 5)");
  TestCall style = base({2, 2, 8});
  style.attr("style", "neox");
  EXPECT_EQ(reason(std::move(style)), "attribute 'style' must be one of \"split_half\", \"interleaved\" (got \"neox\")");
  TestCall no_k_out = base({2, 2, 8});
  no_k_out.in("k", kBf16, {2, 1, 8});
  EXPECT_EQ(reason(std::move(no_k_out)), "missing output 'k_out' (required with input 'k')");
  TestCall k_tokens = base({2, 2, 8});
  k_tokens.in("k", kBf16, {3, 1, 8}).out("k_out", kBf16, {3, 1, 8});
  EXPECT_EQ(reason(std::move(k_tokens)), "k has shape [3, 1, 8], expected q's token dims and head dim = [2, 1, 8]");
  TestCall k_dtype = base({2, 2, 8});
  k_dtype.in("k", kF32, {2, 1, 8}).out("k_out", kF32, {2, 1, 8});
  EXPECT_EQ(reason(std::move(k_dtype)), "k is fp32, expected bf16 (the dtype of q)");
  TestCall cos_dtype;
  cos_dtype.in("q", kBf16, {2, 2, 8}).in("cos", kBf16, {8, 4}).in("sin", kF32, {8, 4}).out("q_out", kBf16, {2, 2, 8});
  EXPECT_EQ(reason(std::move(cos_dtype)), "cos must be fp32 (got bf16)");
  TestCall rows;
  rows.in("q", kBf16, {2, 2, 8}).in("cos", kF32, {8, 4}).in("sin", kF32, {6, 4}).out("q_out", kBf16, {2, 2, 8});
  EXPECT_EQ(reason(std::move(rows)), "sin has shape [6, 4], expected the shape of cos = [8, 4]");
  TestCall positions = base({2, 3, 2, 8});
  positions.in("positions", kI32, {6});
  EXPECT_EQ(reason(std::move(positions)), "positions has shape [6], expected the token dims of q = [2, 3]");
  TestCall pos_dtype = base({4, 2, 8});
  pos_dtype.in("positions", OPCERT_DTYPE_I8, {4});
  EXPECT_EQ(reason(std::move(pos_dtype)), "positions must be int32 (got int8)");
  EXPECT_EQ(reason(base({5, 1, 8}, 4)),
            "cos and sin have 4 rows, expected at least 5 for the implicit positions 0..4 (no input 'positions')");
  TestCall wrong_out;
  wrong_out.in("q", kBf16, {2, 2, 8}).in("cos", kF32, {8, 4}).in("sin", kF32, {8, 4}).out("q_out", kF32, {2, 2, 8});
  EXPECT_EQ(reason(std::move(wrong_out)), "q_out is fp32, expected bf16 (the dtype of q)");
}

TEST(RopeParser, PositionsAtRunTime) {
  TestCall c;
  c.in("q", kF32, {3, 1, 4}).in("cos", kF32, {8, 2}).in("sin", kF32, {8, 2}).in("positions", kI32, {3}).out("q_out", kF32, {3, 1, 4});
  const auto p = c.parse(parse_rope, true);
  ASSERT_TRUE(p.ok) << p.reason;
  auto problem = [&](std::vector<int32_t> positions) { return rope_positions_problem(p.operands, positions); };
  EXPECT_EQ(problem({0, 7, 3}), "");
  EXPECT_EQ(problem({0, 8, 3}), "positions[1] = 8 is outside [0, P) = [0, 8)");
  EXPECT_EQ(problem({-1, 0, 0}), "positions[0] = -1 is outside [0, P) = [0, 8)");
}

}  // namespace
}  // namespace opcert::sdk::test
