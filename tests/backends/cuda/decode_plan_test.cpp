// cuda.attention.decode's launch plan (backends/cuda/ops/attention_decode_plan.h), which needs no
// GPU: the tile shapes, and how many KV splits a call gets on an H100 (132 SMs, two CTAs each).
#include <gtest/gtest.h>

#include "ops/attention_decode_plan.h"

namespace opcert::cuda::attn {
namespace {

constexpr int64_t kH100Slots = 132 * 2;

DecodeProblem llama_decode(int64_t batch, int64_t keys = 8192) {
  DecodeProblem p;
  p.batch = batch;
  p.hkv = 8;
  p.rows_per_seq = 4;  // 32 query heads / 8 KV heads, one query row
  p.keys_per_seq = keys;
  p.d = 128;
  return p;
}

TEST(DecodePlan, TilesHoldTheKvHeadsRowsAndAbout32KiBOfKeys) {
  EXPECT_EQ(decode_row_blocks(1), 1);
  EXPECT_EQ(decode_row_blocks(16), 1);
  EXPECT_EQ(decode_row_blocks(17), 2);
  EXPECT_EQ(decode_row_blocks(32), 2);
  EXPECT_EQ(decode_row_blocks(33), 4);
  EXPECT_EQ(decode_row_blocks(64), 4);
  EXPECT_EQ(decode_tile_keys(64, 1), 128);
  EXPECT_EQ(decode_tile_keys(128, 1), 64);
  EXPECT_EQ(decode_tile_keys(256, 1), 64);  // 16 keys for each of the four key-group warps
  EXPECT_EQ(decode_tile_keys(256, 4), 32);
  // Two CTAs share an SM's 228 KiB at D 64 and 128 (each also has 1.5 KiB static and reserved).
  for (int d : {64, 128})
    for (int rb : {1, 2, 4}) EXPECT_LE(2 * (decode_smem_bytes(d, rb) + 1536), 228 * 1024) << d << " " << rb;
}

TEST(DecodePlan, LargeBatchesRunOneSplitAndWriteTheOutputDirectly) {
  const DecodePlan plan = plan_decode(llama_decode(64), kH100Slots);
  EXPECT_EQ(plan.row_blocks, 1);
  EXPECT_EQ(plan.splits, 1);  // 512 CTAs fill 2 waves to 97%
  EXPECT_EQ(decode_workspace_floats(64, 32, 128, plan.splits), 0);
}

TEST(DecodePlan, SmallBatchesSplitTheKeysToFillTheDevice) {
  // B1: 8 (sequence, KV head) CTAs; 32 splits of 256 keys give 256 CTAs for 264 slots.
  EXPECT_EQ(plan_decode(llama_decode(1), kH100Slots).splits, 32);
  EXPECT_EQ(plan_decode(llama_decode(4), kH100Slots).splits, 8);
  EXPECT_EQ(plan_decode(llama_decode(16), kH100Slots).splits, 2);
  EXPECT_EQ(decode_workspace_floats(1, 32, 128, 32), int64_t{32} * 32 * 129);
}

TEST(DecodePlan, EverySplitKeepsItsMinimumOfKeysAndTheCountStaysCapped) {
  for (int64_t batch : {1, 2, 3, 5, 8, 13, 64})
    for (int64_t keys : {0, 1, 17, 255, 256, 1000, 8191, 8192, 131072})
      for (bool varlen : {false, true}) {
        DecodeProblem p = llama_decode(batch, keys);
        p.varlen = varlen;
        const int splits = plan_decode(p, kH100Slots).splits;
        EXPECT_GE(splits, 1);
        EXPECT_LE(splits, kDecodeMaxSplits);
        if (splits > 1) {
          EXPECT_GE(keys / splits, kDecodeMinSplitKeys - decode_tile_keys(128, 1)) << batch << " " << keys;
        }
      }
}

TEST(DecodePlan, VarlenGridsAreMadeFourWavesDeep) {
  // Llama-3-8B varlen decode of the bench suite: 16 sequences, 2555 keys on average.
  DecodeProblem p = llama_decode(16, 2555);
  p.varlen = true;
  const int splits = plan_decode(p, kH100Slots).splits;
  EXPECT_GE(16 * 8 * splits, 4 * kH100Slots);
  EXPECT_EQ(splits, 10);  // 40 tiles of 64 keys, 4 a split
}

}  // namespace
}  // namespace opcert::cuda::attn
