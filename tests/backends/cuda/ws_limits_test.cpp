// What the warp-specialized Hopper attention keys' tensor maps and 1-d grid allow
// (attention_hopper_support.h: tma_limits), which needs no GPU: BSHD only, at least one key, and
// at most 2^30 query tiles on its 1-d grid (attention_ws_walk.h), each refusal with its reason.
#include <gtest/gtest.h>

#include "ops/attention_hopper_support.h"

namespace opcert::cuda::attn {
namespace {

AttentionOperands bshd(int64_t batch, int64_t s, int64_t hq, int64_t d) {
  AttentionOperands a;
  a.layout = sdk::AttentionLayout::kBshd;
  a.dtype = a.out_dtype = OPCERT_DTYPE_BF16;
  a.batch = batch;
  a.sq = a.skv = s;
  a.tq = a.tk = batch * s;
  a.hq = a.hkv = hq;
  a.d = d;
  return a;
}

TEST(WsLimits, AnOrdinaryCallIsTaken) {
  const sdk::Support s = tma_limits(bshd(4, 8192, 32, 128), "k");
  EXPECT_TRUE(s.supported) << s.reason;
}

TEST(WsLimits, VarlenAndKeylessCallsAreDeclinedWithTheReason) {
  AttentionOperands varlen = bshd(2, 0, 8, 64);
  varlen.layout = sdk::AttentionLayout::kVarlen;
  const sdk::Support v = tma_limits(varlen, "k");
  EXPECT_FALSE(v.supported);
  EXPECT_NE(v.reason.find("BSHD only"), std::string::npos) << v.reason;

  AttentionOperands keyless = bshd(1, 64, 2, 64);
  keyless.skv = keyless.tk = 0;
  const sdk::Support k = tma_limits(keyless, "k");
  EXPECT_FALSE(k.supported);
  EXPECT_NE(k.reason.find("at least one key"), std::string::npos) << k.reason;
}

TEST(WsLimits, MoreQueryTilesThanA1dGridHoldsAreDeclined) {
  // 2^10 query tiles of 64 rows × 2^12 heads × 2^10 batch entries = 2^32 CTAs; every stride is
  // still below 2^40 bytes, so the grid is what declines it.
  const sdk::Support big = tma_limits(bshd(1024, 65536, 4096, 64), "k");
  EXPECT_FALSE(big.supported);
  EXPECT_NE(big.reason.find("1-d grid"), std::string::npos) << big.reason;
  // 256 batch entries are 2^30 CTAs, the most it takes.
  EXPECT_TRUE(tma_limits(bshd(256, 65536, 4096, 64), "k").supported);
  EXPECT_FALSE(tma_limits(bshd(257, 65536, 4096, 64), "k").supported);
}

}  // namespace
}  // namespace opcert::cuda::attn
