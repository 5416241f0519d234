// The order in which the warp-specialized attention kernel's CTAs take their query tiles (plain
// C++: the kernel, its launch and a unit test share it). The grid is 1-d and the hardware starts
// CTAs in index order.
//
// Under a causal mask a head's query tiles differ in cost (query block m sees m + 1 key tiles), so
// the order decides the tail: if a costly tile starts last, the other multiprocessors idle while
// it runs. Walking the costliest tiles first leaves only cheap ones for the end. Doing that across
// all heads at once would make the concurrent tiles read as many different heads' K and V, which
// would then come from HBM once per level; so heads are walked in groups whose K and V fit in a
// part of L2 together, longest first within the group. Without a causal mask every tile costs the
// same, and heads are walked one after another (groups of one), each head's tiles side by side.
#pragma once

#include <algorithm>
#include <cstdint>

#if defined(__CUDACC__)
#define OPCERT_WS_WALK_HD __host__ __device__
#else
#define OPCERT_WS_WALK_HD
#endif

namespace opcert::cuda::attn {

/// The walk of a launch: m_blocks query blocks per head, heads (hq × batch, batch-major) walked in
/// groups of group_heads.
struct WsWalk {
  int m_blocks = 0;
  int heads = 0;
  int group_heads = 1;
  /// Its tiles, one CTA each unless persistent (at most 2^30: attention_hopper_support.cpp).
  OPCERT_WS_WALK_HD int tiles() const { return m_blocks * heads; }
};

/// The K and V bytes a causal group's heads may keep in L2 together (an H100 has 50 MB).
inline constexpr int64_t kWsGroupKvBytes = int64_t{16} << 20;

/// The walk of `heads` heads of `m_blocks` query blocks; causal walks group the heads whose K and
/// V (kv_head_bytes per KV head, each serving `group` query heads) fit kWsGroupKvBytes.
inline WsWalk ws_walk_of(int m_blocks, int heads, bool causal, int64_t kv_head_bytes, int group) {
  WsWalk w;
  w.m_blocks = m_blocks;
  w.heads = heads;
  if (!causal || heads <= 0) return w;
  const int64_t fit = kWsGroupKvBytes * std::max(group, 1) / std::max<int64_t>(kv_head_bytes, 1);
  w.group_heads = static_cast<int>(std::clamp<int64_t>(fit, 1, heads));
  return w;
}

/// A CTA's query tile: its head (over hq × batch, batch-major) and its query block.
struct WsTileIndex {
  int head = 0;
  int m_block = 0;
};

/// The tile of CTA `cta` of walk w: its group of heads, then its level (level 0 the last query
/// block of each head), then its head in the group. (32-bit: the callers keep m_blocks × heads
/// at most 2^30, attention_hopper_support.cpp.)
OPCERT_WS_WALK_HD inline WsTileIndex ws_tile_index(const WsWalk& w, int cta) {
  const int per_group = w.m_blocks * w.group_heads;
  const int group = cta / per_group;
  const int first = group * w.group_heads;
  const int rest = w.heads - first;
  const int in_group = rest < w.group_heads ? rest : w.group_heads;  // the last group may be short
  const int within = cta - group * per_group;
  return {first + within % in_group, w.m_blocks - 1 - within / in_group};
}

}  // namespace opcert::cuda::attn
