// How cuda.attention.decode lays a decode call out on the GPU (plain C++, no CUDA: the backend, the
// probe and a unit test share it). A CTA owns one (sequence, KV head, KV split): its tile packs the
// `group` query heads of that KV head times the sequence's query rows, so K and V are read once
// per KV head. The keys of a sequence are split across CTAs when (sequence, KV head) pairs alone
// would leave SMs idle; a second kernel then merges the splits' partial results.
#pragma once

#include <algorithm>
#include <cstdint>

namespace opcert::cuda::attn {

/// Warps of a decode CTA.
inline constexpr int kDecodeWarps = 4;
/// Rows (query heads × query rows of one KV head) a CTA tile holds: BSHD calls with more are
/// declined; a varlen sequence with more is walked tile by tile.
inline constexpr int kDecodeMaxRows = 16 * kDecodeWarps;
/// At most this many splits of a sequence's keys (the merge reads one partial per split).
inline constexpr int kDecodeMaxSplits = 64;
/// A split streams at least this many keys: fewer would spend more on the pipeline's fill and on
/// the merge than they save.
inline constexpr int kDecodeMinSplitKeys = 256;

/// 16-row MMA blocks of a CTA tile holding `rows` rows: 1, 2 or 4. The kernel's warps are
/// row_blocks row groups × (4 / row_blocks) key groups.
constexpr int decode_row_blocks(int64_t rows) { return rows <= 16 ? 1 : rows <= 32 ? 2 : 4; }

/// Keys per K/V tile (one pipeline stage): about 32 KiB of K and V, and at least 16 keys (one
/// MMA k-step of P·V) for each key-group warp.
constexpr int decode_tile_keys(int d, int row_blocks) {
  return std::max(8192 / d, 16 * (kDecodeWarps / row_blocks));
}

/// K/V tiles in flight: the ring of shared-memory stages the keys stream through.
inline constexpr int kDecodeStages = 3;

/// Dynamic shared memory of a decode CTA with 2-byte elements: the query tile, then the K and V
/// rings (reused after the key loop to merge the key groups' partial results).
constexpr int decode_smem_bytes(int d, int row_blocks) {
  return (16 * row_blocks * d + 2 * kDecodeStages * decode_tile_keys(d, row_blocks) * d) * 2;
}

/// What the plan needs to know of a call (per sequence: averages for varlen, whose lengths are
/// device data).
struct DecodeProblem {
  int64_t batch = 0;          // sequences
  int64_t hkv = 0;            // KV heads
  int64_t rows_per_seq = 0;   // query rows × group of one (sequence, KV head); varlen: the average, rounded up
  int64_t keys_per_seq = 0;   // keys some query of a sequence may see; varlen: the average, rounded up
  int d = 0;
  bool varlen = false;
};

struct DecodePlan {
  int row_blocks = 1;  // 16-row blocks of a CTA tile
  int splits = 1;      // KV splits of every sequence (1: the kernel writes o and lse itself)
};

/// The split count. `slots` is how many CTAs the device runs at once (SMs × CTAs per SM).
/// BSHD: every CTA has the same work, so the count that fills the last wave best (fewest splits
/// within 10% of the best fill) is taken. Varlen: the lengths differ and are unknown here, so the
/// grid is made at least four waves deep, which lets the block scheduler even out the sequences.
/// Both are capped so that a split keeps kDecodeMinSplitKeys keys (of the average sequence).
inline int decode_splits(const DecodeProblem& p, int64_t slots) {
  const int64_t base = std::max<int64_t>(1, p.batch * p.hkv);  // CTAs without splitting
  const int64_t tile = decode_tile_keys(p.d, decode_row_blocks(p.rows_per_seq));
  const int64_t tiles = std::max<int64_t>(1, (p.keys_per_seq + tile - 1) / tile);
  const int64_t min_tiles = std::max<int64_t>(1, kDecodeMinSplitKeys / tile);
  const int64_t most = std::clamp<int64_t>(tiles / min_tiles, 1, kDecodeMaxSplits);
  slots = std::max<int64_t>(1, slots);
  // The splits a count really gives: each split takes ceil(tiles / n) whole tiles.
  const auto effective = [tiles](int64_t n) {
    const int64_t per = (tiles + n - 1) / n;
    return (tiles + per - 1) / per;
  };
  if (p.varlen) {
    int64_t n = 1;
    while (n < most && base * effective(n) < 4 * slots) ++n;
    return static_cast<int>(effective(n));
  }
  const auto fill = [&](int64_t n) {
    const int64_t ctas = base * effective(n);
    return static_cast<double>(ctas) / static_cast<double>(((ctas + slots - 1) / slots) * slots);
  };
  double best = 0.0;
  for (int64_t n = 1; n <= most; ++n) best = std::max(best, fill(n));
  for (int64_t n = 1; n <= most; ++n)
    if (fill(n) >= 0.9 * best) return static_cast<int>(effective(n));
  return 1;
}

inline DecodePlan plan_decode(const DecodeProblem& p, int64_t slots) {
  DecodePlan plan;
  plan.row_blocks = decode_row_blocks(p.rows_per_seq);
  plan.splits = decode_splits(p, slots);
  return plan;
}

/// fp32 workspace of a plan: per (query token, query head) one partial o of D values and one
/// partial lse for each split, o first. None with one split.
inline int64_t decode_workspace_floats(int64_t tq, int64_t hq, int d, int splits) {
  return splits > 1 ? tq * hq * splits * (int64_t{d} + 1) : 0;
}

}  // namespace opcert::cuda::attn
