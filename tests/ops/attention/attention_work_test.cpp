// The attention work model (harness/ops/attention/attention_work.cpp, docs/OPS.md "Work model"):
// hand-worked flops and bytes on cases built by the real case builder (so operand and attribute
// names are the ones bench will see).
#include "opkit/work_model.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

#include "ops/op_test_support.h"

namespace opcert {
namespace {

using nlohmann::json;

Case build(const std::string& op, const json& params) { return test::build_case(op, params); }

// Attention flops from the unmasked (query, key) pairs per query head: 2·D for q·k, 2·D for p·v.
double attention_flops(double pairs_per_head, double heads, double d) { return 4 * d * heads * pairs_per_head; }

// One bshd sequence, 1 head of D = 1, so flops / 4 is the number of unmasked pairs.
double bshd_pairs(int64_t sq, int64_t skv, bool causal, int64_t window_left) {
  const auto c = build("attention", {{"dtype", "fp32"}, {"sq", sq}, {"skv", skv}, {"hq", 1}, {"d", 1},
                                     {"causal", causal}, {"window_left", window_left}});
  return work_model(c).flops / 4;
}

TEST(WorkModel, AttentionCausalSquare) {
  // 1 + 2 + 3 + 4 = 10 pairs per head; 2 query heads of D = 8 over one kv head (GQA).
  const auto m = work_model(build("attention", {{"dtype", "bf16"}, {"b", 1}, {"sq", 4}, {"hq", 2}, {"hkv", 1}, {"d", 8},
                                                {"causal", true}, {"lse", true}}));
  EXPECT_EQ(m.flops, attention_flops(10, 2, 8));
  // q, o [1,4,2,8] and k, v [1,4,1,8] bf16; lse [1,2,4] fp32.
  EXPECT_EQ(m.bytes, 2.0 * (64 + 32 + 32 + 64) + 4 * 8);
  EXPECT_EQ(m.compute_dtype, "bf16");
  EXPECT_TRUE(m.compute_bound);
}

TEST(WorkModel, AttentionFp8CountsOneByteCodesAndTheDescales) {
  // q [2,4,2,8] and k, v [2,4,1,8] e4m3: 1 byte each; descales [2,1] fp32 x3; o [2,4,2,8] bf16.
  const auto m = work_model(build("attention", {{"dtype", "e4m3"}, {"b", 2}, {"sq", 4}, {"hq", 2}, {"hkv", 1}, {"d", 8},
                                                {"descale", true}}));
  EXPECT_EQ(m.flops, attention_flops(2 * 16, 2, 8));
  EXPECT_EQ(m.bytes, 1.0 * (128 + 64 + 64) + 4.0 * 3 * 2 + 2.0 * 128);
  EXPECT_EQ(m.compute_dtype, "fp8_e4m3fn") << "judged against the fp8 tensor-core peak";
}

TEST(WorkModel, AttentionMasksCountedByHand) {
  EXPECT_EQ(bshd_pairs(4, 4, false, -1), 16);
  EXPECT_EQ(bshd_pairs(4, 4, true, -1), 10);
  EXPECT_EQ(bshd_pairs(2, 4, true, -1), 3 + 4);     // bottom-right: query 0 sees keys 0..2
  EXPECT_EQ(bshd_pairs(4, 2, true, -1), 0 + 0 + 1 + 2);  // the first two queries see no key
  EXPECT_EQ(bshd_pairs(4, 4, true, 1), 1 + 2 + 2 + 2);   // itself and one key to the left
  EXPECT_EQ(bshd_pairs(4, 4, true, 0), 4);               // the diagonal only
  EXPECT_EQ(bshd_pairs(4, 4, false, 1), 4 + 4 + 3 + 2);  // the window bounds the left side only
  EXPECT_EQ(bshd_pairs(2, 4, true, 1), 2 + 2);           // keys 1..2 and 2..3
  EXPECT_EQ(bshd_pairs(0, 4, true, -1), 0);
  EXPECT_EQ(bshd_pairs(4, 0, false, -1), 0);
}

TEST(WorkModel, AttentionBatchMultipliesThePairs) {
  const auto m = work_model(build("attention", {{"dtype", "fp16"}, {"b", 3}, {"sq", 2}, {"skv", 4}, {"hq", 1}, {"d", 64},
                                                {"causal", true}}));
  EXPECT_EQ(m.flops, attention_flops(3 * 7, 1, 64));
  EXPECT_EQ(m.compute_dtype, "fp16");
}

// The O(sq) count against the mask of docs/OPS.md applied to every (i, j).
TEST(WorkModel, AttentionPairsMatchTheMaskPairByPair) {
  for (int64_t sq : {0, 1, 3, 7})
    for (int64_t skv : {0, 1, 3, 7, 10})
      for (bool causal : {false, true})
        for (int64_t w : {-1, 0, 1, 2, 5, 20}) {
          double expected = 0;
          for (int64_t i = 0; i < sq; ++i)
            for (int64_t j = 0; j < skv; ++j) {
              const bool right_ok = !causal || j <= i + skv - sq;
              const bool left_ok = w < 0 || j >= i + skv - sq - w;
              expected += right_ok && left_ok;
            }
          EXPECT_EQ(bshd_pairs(sq, skv, causal, w), expected) << sq << " " << skv << " " << causal << " " << w;
        }
}

TEST(WorkModel, AttentionLongCausalIsExact) {
  const auto m = work_model(build("attention", {{"dtype", "bf16"}, {"sq", 8192}, {"hq", 32}, {"hkv", 8}, {"d", 128},
                                                {"causal", true}}));
  EXPECT_EQ(m.flops, attention_flops(8192.0 * 8193 / 2, 32, 128));
}

TEST(WorkModel, AttentionVarlenPerSequenceWithAnEmptyOne) {
  // Causal, per sequence: 3×3 gives 1+2+3 = 6; the empty one 0; 2 queries on 4 keys 3+4 = 7.
  const auto m = work_model(build("attention", {{"dtype", "fp16"}, {"layout", "varlen"}, {"seqlens_q", {3, 0, 2}},
                                                {"seqlens_k", {3, 0, 4}}, {"hq", 2}, {"d", 4}, {"causal", true}}));
  EXPECT_EQ(m.flops, attention_flops(13, 2, 4));
  // q, o [5,2,4] and k, v [7,2,4] fp16; cu_seqlens_q, cu_seqlens_k [4] int32.
  EXPECT_EQ(m.bytes, 2.0 * (40 + 56 + 56 + 40) + 4 * 4 + 4 * 4);
  EXPECT_EQ(m.compute_dtype, "fp16");
}

TEST(WorkModel, AttentionVarlenQueriesWithoutKeysDoNoWork) {
  const auto m = work_model(build("attention", {{"dtype", "bf16"}, {"layout", "varlen"}, {"seqlens_q", {2, 1}},
                                                {"seqlens_k", {0, 3}}, {"hq", 1}, {"d", 2}, {"lse", true}}));
  EXPECT_EQ(m.flops, attention_flops(0 + 3, 1, 2));
  // q, o [3,1,2], k, v [3,1,2] bf16; cu_seqlens [3] ×2 int32; lse [1,3] fp32.
  EXPECT_EQ(m.bytes, 2.0 * 6 * 4 + 4 * 3 * 2 + 4 * 3);
}

TEST(WorkModel, AttentionVarlenWithoutCuSeqlensValuesIsRejected) {
  auto c = build("attention", {{"dtype", "bf16"}, {"layout", "varlen"}, {"seqlens_q", {2}}, {"hq", 1}, {"d", 2}});
  for (auto& t : c.inputs)
    if (t.name == "cu_seqlens_k") t.fill = FillSpec{};
  EXPECT_THROW(work_model(c), std::invalid_argument);
}

}  // namespace
}  // namespace opcert
