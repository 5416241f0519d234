// The order in which cuda.attention.warpspec's CTAs take their query tiles
// (backends/cuda/ops/attention_ws_walk.h), which needs no GPU: every tile exactly once, heads one at
// a time without a causal mask, and causal groups of heads whose K and V fit in L2 walked from
// their costliest query block down.
#include <gtest/gtest.h>

#include <set>
#include <utility>
#include <vector>

#include "ops/attention_ws_walk.h"

namespace opcert::cuda::attn {
namespace {

std::vector<WsTileIndex> walk_all(const WsWalk& w) {
  std::vector<WsTileIndex> tiles;
  for (int cta = 0; cta < w.tiles(); ++cta) tiles.push_back(ws_tile_index(w, cta));
  return tiles;
}

void expect_each_tile_once(const WsWalk& w) {
  std::set<std::pair<int, int>> seen;
  for (const WsTileIndex& t : walk_all(w)) {
    ASSERT_GE(t.head, 0);
    ASSERT_LT(t.head, w.heads);
    ASSERT_GE(t.m_block, 0);
    ASSERT_LT(t.m_block, w.m_blocks);
    EXPECT_TRUE(seen.insert({t.head, t.m_block}).second) << "head " << t.head << " block " << t.m_block << " twice";
  }
  EXPECT_EQ(seen.size(), static_cast<size_t>(w.m_blocks) * w.heads);
}

TEST(WsWalk, WithoutACausalMaskHeadsAreWalkedOneAfterAnotherFromTheirLastBlock) {
  const WsWalk w = ws_walk_of(4, 3, false, 1024, 1);
  EXPECT_EQ(w.group_heads, 1);
  const std::vector<WsTileIndex> tiles = walk_all(w);
  ASSERT_EQ(tiles.size(), 12u);
  for (size_t i = 0; i < tiles.size(); ++i) {
    EXPECT_EQ(tiles[i].head, static_cast<int>(i / 4)) << i;
    EXPECT_EQ(tiles[i].m_block, 3 - static_cast<int>(i % 4)) << i;
  }
  expect_each_tile_once(w);
}

TEST(WsWalk, CausalGroupsHoldTheHeadsWhoseKeysAndValuesFitTheL2Budget) {
  const int64_t four_mib = int64_t{4} << 20;
  EXPECT_EQ(ws_walk_of(64, 128, true, four_mib, 1).group_heads, kWsGroupKvBytes / four_mib);
  // A KV head shared by four query heads is read once for all four.
  EXPECT_EQ(ws_walk_of(64, 128, true, four_mib, 4).group_heads, 4 * kWsGroupKvBytes / four_mib);
  // At least one head, at most all of them.
  EXPECT_EQ(ws_walk_of(64, 128, true, 4 * kWsGroupKvBytes, 1).group_heads, 1);
  EXPECT_EQ(ws_walk_of(8, 10, true, 1024, 1).group_heads, 10);
}

TEST(WsWalk, CausalWalksGoFromTheCostliestBlockDownWithinEachGroup) {
  for (const WsWalk& w : {ws_walk_of(5, 8, true, kWsGroupKvBytes / 3, 1),  // groups of 3, 3, 2
                          ws_walk_of(7, 4, true, 1, 1), ws_walk_of(1, 5, true, kWsGroupKvBytes / 2, 1)}) {
    SCOPED_TRACE(testing::Message() << "m_blocks " << w.m_blocks << " heads " << w.heads << " group " << w.group_heads);
    expect_each_tile_once(w);
    const std::vector<WsTileIndex> tiles = walk_all(w);
    for (size_t i = 1; i < tiles.size(); ++i) {
      const int group = tiles[i].head / w.group_heads, previous_group = tiles[i - 1].head / w.group_heads;
      if (group == previous_group) EXPECT_LE(tiles[i].m_block, tiles[i - 1].m_block) << i;
      else EXPECT_EQ(group, previous_group + 1) << i;  // groups one after another, none revisited
    }
  }
  const WsWalk w = ws_walk_of(5, 8, true, kWsGroupKvBytes / 3, 1);
  ASSERT_EQ(w.group_heads, 3);
  const std::vector<WsTileIndex> tiles = walk_all(w);
  // The first three CTAs are the last blocks of heads 0-2; the short last group (heads 6, 7)
  // starts at CTA 30 with the last block of head 6.
  for (int i = 0; i < 3; ++i) EXPECT_EQ(tiles[i].head, i);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(tiles[i].m_block, 4);
  EXPECT_EQ(tiles[30].head, 6);
  EXPECT_EQ(tiles[30].m_block, 4);
  EXPECT_EQ(tiles[31].head, 7);
  EXPECT_EQ(tiles[39].m_block, 0);
}

}  // namespace
}  // namespace opcert::cuda::attn
