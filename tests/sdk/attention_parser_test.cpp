// The attention parser (opcert/sdk/ops/attention.h) against docs/OPS.md: BSHD and varlen, GQA,
// lse, the attributes and their defaults, fp8 e4m3fn with its descales and bf16 output; every
// violation named; cu_seqlens values at run time.
#include <gtest/gtest.h>
#include <opcert/sdk/ops/attention.h>

#include <cmath>
#include <vector>

#include "sdk/call_fixture.h"

namespace opcert::sdk::test {
namespace {

constexpr int32_t kBf16 = OPCERT_DTYPE_BF16, kF32 = OPCERT_DTYPE_F32, kI32 = OPCERT_DTYPE_I32;
constexpr int32_t kE4m3 = OPCERT_DTYPE_F8_E4M3FN;

// q [B, Sq, Hq, D], k and v [B, Skv, Hkv, D], o as q.
TestCall bshd(int64_t b, int64_t sq, int64_t skv, int64_t hq, int64_t hkv, int64_t d, int32_t dtype = kBf16) {
  TestCall c;
  c.in("q", dtype, {b, sq, hq, d}).in("k", dtype, {b, skv, hkv, d}).in("v", dtype, {b, skv, hkv, d});
  c.out("o", dtype, {b, sq, hq, d});
  return c;
}

// Packed: q [Tq, Hq, D], k and v [Tk, Hkv, D], cu_seqlens [B+1].
TestCall varlen(int64_t tq, int64_t tk, int64_t batch, int64_t hq = 4, int64_t hkv = 2, int64_t d = 64) {
  TestCall c;
  c.in("q", kBf16, {tq, hq, d}).in("k", kBf16, {tk, hkv, d}).in("v", kBf16, {tk, hkv, d});
  c.in("cu_seqlens_q", kI32, {batch + 1}).in("cu_seqlens_k", kI32, {batch + 1});
  c.out("o", kBf16, {tq, hq, d});
  return c;
}

TEST(AttentionParser, BshdWithDefaults) {
  TestCall c = bshd(2, 5, 7, 8, 2, 64);
  const auto p = c.parse(parse_attention);
  ASSERT_TRUE(p.ok) << p.reason;
  const AttentionOperands& a = p.operands;
  EXPECT_FALSE(a.varlen());
  EXPECT_EQ(a.batch, 2);
  EXPECT_EQ(a.sq, 5);
  EXPECT_EQ(a.skv, 7);
  EXPECT_EQ(a.tq, 10);
  EXPECT_EQ(a.tk, 14);
  EXPECT_EQ(a.hq, 8);
  EXPECT_EQ(a.hkv, 2);
  EXPECT_EQ(a.group(), 4);
  EXPECT_EQ(a.d, 64);
  EXPECT_EQ(a.dtype, kBf16);
  EXPECT_DOUBLE_EQ(a.scale, 0.125) << "1/sqrt(D) by default";
  EXPECT_FALSE(a.causal);
  EXPECT_EQ(a.window_left, -1);
  EXPECT_FALSE(a.lse);
}

TEST(AttentionParser, VarlenWithLseAndAttributes) {
  TestCall c = varlen(9, 12, 3);
  c.out("lse", kF32, {4, 9}).attr("scale", 0.5).attr("causal", 1).attr("window_left", 16);
  const auto p = c.parse(parse_attention);
  ASSERT_TRUE(p.ok) << p.reason;
  const AttentionOperands& a = p.operands;
  EXPECT_TRUE(a.varlen());
  EXPECT_EQ(a.batch, 3);
  EXPECT_EQ(a.tq, 9);
  EXPECT_EQ(a.tk, 12);
  EXPECT_EQ(a.sq, 0);
  EXPECT_DOUBLE_EQ(a.scale, 0.5);
  EXPECT_TRUE(a.causal);
  EXPECT_EQ(a.window_left, 16);
  EXPECT_TRUE(a.lse);
}

TEST(AttentionParser, Fp32MqaAndAnIntScale) {
  TestCall c = bshd(1, 3, 3, 6, 1, 128, kF32);
  c.out("lse", kF32, {1, 6, 3}).attr("scale", 2);
  const auto p = c.parse(parse_attention);
  ASSERT_TRUE(p.ok) << p.reason;
  EXPECT_EQ(p.operands.group(), 6);
  EXPECT_DOUBLE_EQ(p.operands.scale, 2.0);
}

TEST(AttentionParser, EmptySequencesAreCalls) {
  TestCall c = varlen(0, 0, 0);
  EXPECT_TRUE(c.parse(parse_attention, true).ok);
  TestCall d = bshd(1, 0, 4, 2, 2, 64);
  EXPECT_TRUE(d.parse(parse_attention).ok);
}

TEST(AttentionParser, Violations) {
  auto reason = [](TestCall c) { return c.parse(parse_attention).reason; };
  EXPECT_EQ(reason(bshd(1, 4, 4, 3, 2, 64)), "q has 3 heads and k 2, expected Hq a multiple of Hkv (GQA/MQA)");
  EXPECT_EQ(reason(bshd(1, 4, 4, 2, 2, 64, OPCERT_DTYPE_I8)), "q must be fp16/bf16/fp32/fp8_e4m3fn (got int8)");
  EXPECT_EQ(reason(bshd(1, 4, 4, 2, 2, 0)), "q has head dim D = 0, expected D >= 1");
  TestCall lse = bshd(1, 4, 4, 2, 2, 64);
  lse.out("lse", kF32, {1, 4, 2});
  EXPECT_EQ(reason(std::move(lse)), "lse has shape [1, 4, 2], expected [B, Hq, Sq] = [1, 2, 4]");
  TestCall lse_dtype = bshd(1, 4, 4, 2, 2, 64);
  lse_dtype.out("lse", kBf16, {1, 2, 4});
  EXPECT_EQ(reason(std::move(lse_dtype)), "lse must be fp32 (got bf16)");
  TestCall batch;
  batch.in("q", kBf16, {2, 4, 2, 64}).in("k", kBf16, {1, 4, 2, 64}).in("v", kBf16, {1, 4, 2, 64}).out("o", kBf16, {2, 4, 2, 64});
  EXPECT_EQ(reason(std::move(batch)), "k has shape [1, 4, 2, 64], expected [B, Skv, Hkv, D] (B and D of q) = [2, 4, 2, 64]");
  TestCall head_dim;
  head_dim.in("q", kBf16, {1, 4, 2, 64}).in("k", kBf16, {1, 4, 2, 32}).in("v", kBf16, {1, 4, 2, 32}).out("o", kBf16, {1, 4, 2, 64});
  EXPECT_EQ(reason(std::move(head_dim)), "k has shape [1, 4, 2, 32], expected [B, Skv, Hkv, D] (B and D of q) = [1, 4, 2, 64]");
  TestCall v_shape;
  v_shape.in("q", kBf16, {1, 4, 2, 64}).in("k", kBf16, {1, 4, 2, 64}).in("v", kBf16, {1, 5, 2, 64}).out("o", kBf16, {1, 4, 2, 64});
  EXPECT_EQ(reason(std::move(v_shape)), "v has shape [1, 5, 2, 64], expected the shape of k = [1, 4, 2, 64]");
  TestCall o_dtype;
  o_dtype.in("q", kBf16, {1, 4, 2, 64}).in("k", kBf16, {1, 4, 2, 64}).in("v", kBf16, {1, 4, 2, 64}).out("o", kF32, {1, 4, 2, 64});
  EXPECT_EQ(reason(std::move(o_dtype)), "o is fp32, expected bf16 (the dtype of q)");
  TestCall rank;
  rank.in("q", kBf16, {4, 2, 64}).in("k", kBf16, {4, 2, 64}).in("v", kBf16, {4, 2, 64}).out("o", kBf16, {4, 2, 64});
  EXPECT_EQ(reason(std::move(rank)), "q must be 4-D [B, Sq, Hq, D] (got [4, 2, 64])");
  TestCall causal = bshd(1, 4, 4, 2, 2, 64);
  causal.attr("causal", 2);
  EXPECT_EQ(reason(std::move(causal)), "attribute 'causal' must be 0 or 1 (got 2)");
  TestCall window = bshd(1, 4, 4, 2, 2, 64);
  window.attr("window_left", -2);
  EXPECT_EQ(reason(std::move(window)), "attribute 'window_left' must be -1 (unlimited) or more (got -2)");
  TestCall scale = bshd(1, 4, 4, 2, 2, 64);
  scale.attr("scale", "auto");
  EXPECT_EQ(reason(std::move(scale)), "attribute 'scale' must be a float (got a string)");
  TestCall no_v;
  no_v.in("q", kBf16, {1, 4, 2, 64}).in("k", kBf16, {1, 4, 2, 64}).out("o", kBf16, {1, 4, 2, 64});
  EXPECT_EQ(reason(std::move(no_v)), "missing input 'v'");
}

TEST(AttentionParser, VarlenViolations) {
  auto reason = [](TestCall c) { return c.parse(parse_attention).reason; };
  TestCall only_q;
  only_q.in("q", kBf16, {4, 2, 64}).in("k", kBf16, {4, 2, 64}).in("v", kBf16, {4, 2, 64}).in("cu_seqlens_q", kI32, {2});
  only_q.out("o", kBf16, {4, 2, 64});
  EXPECT_EQ(reason(std::move(only_q)), "missing input 'cu_seqlens_k' (varlen attention needs it with 'cu_seqlens_q')");
  TestCall only_k;
  only_k.in("q", kBf16, {1, 4, 2, 64}).in("k", kBf16, {1, 4, 2, 64}).in("v", kBf16, {1, 4, 2, 64}).in("cu_seqlens_k", kI32, {2});
  only_k.out("o", kBf16, {1, 4, 2, 64});
  EXPECT_EQ(reason(std::move(only_k)), "input 'cu_seqlens_k' is given without 'cu_seqlens_q' (varlen needs both)");
  TestCall lengths;
  lengths.in("q", kBf16, {4, 2, 64}).in("k", kBf16, {4, 2, 64}).in("v", kBf16, {4, 2, 64});
  lengths.in("cu_seqlens_q", kI32, {3}).in("cu_seqlens_k", kI32, {2}).out("o", kBf16, {4, 2, 64});
  EXPECT_EQ(reason(std::move(lengths)), "cu_seqlens_k has shape [2], expected [B+1] (the shape of cu_seqlens_q) = [3]");
  TestCall cu_dtype;
  cu_dtype.in("q", kBf16, {4, 2, 64}).in("k", kBf16, {4, 2, 64}).in("v", kBf16, {4, 2, 64});
  cu_dtype.in("cu_seqlens_q", OPCERT_DTYPE_I8, {2}).in("cu_seqlens_k", kI32, {2}).out("o", kBf16, {4, 2, 64});
  EXPECT_EQ(reason(std::move(cu_dtype)), "cu_seqlens_q must be int32 (got int8)");
  TestCall no_entries = varlen(4, 4, -1);
  EXPECT_EQ(reason(std::move(no_entries)), "cu_seqlens_q has shape [0], expected [B+1] (at least one entry)");
  TestCall bshd_rank;
  bshd_rank.in("q", kBf16, {1, 4, 2, 64}).in("k", kBf16, {1, 4, 2, 64}).in("v", kBf16, {1, 4, 2, 64});
  bshd_rank.in("cu_seqlens_q", kI32, {2}).in("cu_seqlens_k", kI32, {2}).out("o", kBf16, {1, 4, 2, 64});
  EXPECT_EQ(reason(std::move(bshd_rank)), "q must be 3-D [Tq, Hq, D] when cu_seqlens_q is given (got [1, 4, 2, 64])");
  TestCall lse = varlen(9, 12, 3);
  lse.out("lse", kF32, {9, 4});
  EXPECT_EQ(reason(std::move(lse)), "lse has shape [9, 4], expected [Hq, Tq] = [4, 9]");
}

// fp8: q, k, v e4m3fn, o bf16, descales [B, Hkv] fp32.
TestCall fp8_bshd(int64_t b = 2, int64_t s = 4, int64_t hq = 4, int64_t hkv = 2, int64_t d = 64) {
  TestCall c;
  c.in("q", kE4m3, {b, s, hq, d}).in("k", kE4m3, {b, s, hkv, d}).in("v", kE4m3, {b, s, hkv, d});
  c.out("o", kBf16, {b, s, hq, d});
  return c;
}

TEST(AttentionParser, Fp8WithDescalesWritesBf16) {
  TestCall c = fp8_bshd();
  c.in("q_descale", kF32, {2, 2}).in("k_descale", kF32, {2, 2}).in("v_descale", kF32, {2, 2});
  const auto p = c.parse(parse_attention, true);
  ASSERT_TRUE(p.ok) << p.reason;
  const AttentionOperands& a = p.operands;
  EXPECT_TRUE(a.fp8());
  EXPECT_EQ(a.dtype, kE4m3);
  EXPECT_EQ(a.out_dtype, kBf16);
  EXPECT_TRUE(a.q_descale && a.k_descale && a.v_descale);
}

TEST(AttentionParser, Fp8DescalesAreOptionalEachAndVarlenCountsSequences) {
  TestCall none = fp8_bshd();
  const auto p = none.parse(parse_attention);
  ASSERT_TRUE(p.ok) << p.reason;
  EXPECT_FALSE(p.operands.q_descale || p.operands.k_descale || p.operands.v_descale) << "a missing descale counts as 1";
  TestCall varlen_fp8;
  varlen_fp8.in("q", kE4m3, {9, 4, 64}).in("k", kE4m3, {12, 2, 64}).in("v", kE4m3, {12, 2, 64});
  varlen_fp8.in("cu_seqlens_q", kI32, {4}).in("cu_seqlens_k", kI32, {4}).in("k_descale", kF32, {3, 2});
  varlen_fp8.out("o", kBf16, {9, 4, 64});
  const auto v = varlen_fp8.parse(parse_attention);
  ASSERT_TRUE(v.ok) << v.reason;
  EXPECT_TRUE(v.operands.k_descale && !v.operands.q_descale);
}

TEST(AttentionParser, NonFp8OutputKeepsTheInputDtype) {
  TestCall c = bshd(1, 4, 4, 2, 2, 64, kF32);
  const auto p = c.parse(parse_attention);
  ASSERT_TRUE(p.ok) << p.reason;
  EXPECT_FALSE(p.operands.fp8());
  EXPECT_EQ(p.operands.out_dtype, kF32);
}

TEST(AttentionParser, Fp8Violations) {
  auto reason = [](TestCall c) { return c.parse(parse_attention).reason; };
  TestCall descale_dtype = fp8_bshd();
  descale_dtype.in("q_descale", kBf16, {2, 2});
  EXPECT_EQ(reason(std::move(descale_dtype)), "q_descale must be fp32 (got bf16)");
  TestCall descale_shape = fp8_bshd();
  descale_shape.in("v_descale", kF32, {2, 4});
  EXPECT_EQ(reason(std::move(descale_shape)),
            "v_descale has shape [2, 4], expected [B, Hkv] (one factor per batch entry and KV head) = [2, 2]");
  TestCall descale_rank = fp8_bshd();
  descale_rank.in("k_descale", kF32, {2});
  EXPECT_EQ(reason(std::move(descale_rank)),
            "k_descale has shape [2], expected [B, Hkv] (one factor per batch entry and KV head) = [2, 2]");
  TestCall varlen_shape;
  varlen_shape.in("q", kE4m3, {9, 4, 64}).in("k", kE4m3, {12, 2, 64}).in("v", kE4m3, {12, 2, 64});
  varlen_shape.in("cu_seqlens_q", kI32, {4}).in("cu_seqlens_k", kI32, {4}).in("q_descale", kF32, {9, 2});
  varlen_shape.out("o", kBf16, {9, 4, 64});
  EXPECT_EQ(reason(std::move(varlen_shape)),
            "q_descale has shape [9, 2], expected [B, Hkv] (one factor per batch entry and KV head) = [3, 2]");
  TestCall without_fp8 = bshd(2, 4, 4, 4, 2, 64);
  without_fp8.in("k_descale", kF32, {2, 2});
  EXPECT_EQ(reason(std::move(without_fp8)),
            "input 'k_descale' is given with bf16 q, k, v; descales dequantize fp8_e4m3fn inputs only (leave it out)");
  TestCall o_fp8;
  o_fp8.in("q", kE4m3, {1, 4, 2, 64}).in("k", kE4m3, {1, 4, 2, 64}).in("v", kE4m3, {1, 4, 2, 64}).out("o", kE4m3, {1, 4, 2, 64});
  EXPECT_EQ(reason(std::move(o_fp8)), "o is fp8_e4m3fn, expected bf16 (fp8_e4m3fn attention writes bf16)");
  TestCall o_fp16 = fp8_bshd();
  o_fp16.select("o").as(OPCERT_DTYPE_F16);
  EXPECT_EQ(reason(std::move(o_fp16)), "o is fp16, expected bf16 (fp8_e4m3fn attention writes bf16)");
  TestCall e5m2;
  e5m2.in("q", OPCERT_DTYPE_F8_E5M2, {1, 4, 2, 64}).in("k", OPCERT_DTYPE_F8_E5M2, {1, 4, 2, 64});
  e5m2.in("v", OPCERT_DTYPE_F8_E5M2, {1, 4, 2, 64}).out("o", kBf16, {1, 4, 2, 64});
  EXPECT_EQ(reason(std::move(e5m2)),
            "q is fp8_e5m2, expected fp8_e4m3fn: fp8 attention takes e4m3 codes only (FlashAttention-3's format)");
  TestCall mixed = fp8_bshd();
  mixed.select("v").as(kBf16);
  EXPECT_EQ(reason(std::move(mixed)), "v is bf16, expected fp8_e4m3fn (the dtype of q)");
}

TEST(AttentionParser, CuSeqlensValuesAtRunTime) {
  TestCall c = varlen(5, 6, 2);
  const auto p = c.parse(parse_attention, true);
  ASSERT_TRUE(p.ok) << p.reason;
  auto problem = [&](std::vector<int32_t> q, std::vector<int32_t> k) { return cu_seqlens_problem(p.operands, q, k); };
  EXPECT_EQ(problem({0, 2, 5}, {0, 0, 6}), "") << "an empty sequence is allowed";
  EXPECT_EQ(problem({1, 2, 5}, {0, 3, 6}), "cu_seqlens_q must start at 0 (got 1)");
  EXPECT_EQ(problem({}, {0, 3, 6}), "cu_seqlens_q must start at 0 (got no entry)");
  EXPECT_EQ(problem({0, 3, 2}, {0, 3, 6}), "cu_seqlens_q decreases at entry 2 (3 then 2), expected non-decreasing prefix sums");
  EXPECT_EQ(problem({0, 2, 4}, {0, 3, 6}), "cu_seqlens_q ends at 4, expected 5 (the tokens of q)");
  EXPECT_EQ(problem({0, 2, 5}, {0, 3, 7}), "cu_seqlens_k ends at 7, expected 6 (the tokens of k)");
}

}  // namespace
}  // namespace opcert::sdk::test
