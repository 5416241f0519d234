#include "check/philox.h"

#include <gtest/gtest.h>

#include <set>
#include <vector>

namespace opcert {
namespace {

// Known-answer vectors of Philox4x32-10 from the Random123 distribution (kat_vectors).
TEST(Philox, KnownAnswers) {
  EXPECT_EQ(philox4x32_10({0, 0, 0, 0}, 0, 0), (std::array<uint32_t, 4>{0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}));
  EXPECT_EQ(philox4x32_10({0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff}, 0xffffffff, 0xffffffff),
            (std::array<uint32_t, 4>{0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}));
}

TEST(CounterRng, SameKeyAndIndexGiveTheSameBits) {
  const CounterRng a(42, "gemm.bf16", "a"), b(42, "gemm.bf16", "a");
  for (uint64_t i = 0; i < 1000; ++i) EXPECT_EQ(a.bits(i), b.bits(i));
}

TEST(CounterRng, SeedCaseAndTensorEachChangeTheStream) {
  const CounterRng base(42, "gemm.bf16", "a");
  const CounterRng seed(43, "gemm.bf16", "a"), kase(42, "gemm.bf16x", "a"), tensor(42, "gemm.bf16", "b");
  const CounterRng shifted(42, "gemm.bf16a", "");  // ("gemm.bf16", "a") and ("gemm.bf16a", "") must differ
  int same_seed = 0, same_case = 0, same_tensor = 0, same_shifted = 0;
  for (uint64_t i = 0; i < 256; ++i) {
    same_seed += base.bits(i) == seed.bits(i);
    same_case += base.bits(i) == kase.bits(i);
    same_tensor += base.bits(i) == tensor.bits(i);
    same_shifted += base.bits(i) == shifted.bits(i);
  }
  EXPECT_EQ(same_seed, 0);
  EXPECT_EQ(same_case, 0);
  EXPECT_EQ(same_tensor, 0);
  EXPECT_EQ(same_shifted, 0);
}

TEST(CounterRng, UniformIsInTheUnitIntervalAndRoughlyUniform) {
  const CounterRng rng(7, "case", "x");
  constexpr int kN = 100000;
  int buckets[10] = {};
  double sum = 0.0;
  for (int i = 0; i < kN; ++i) {
    const double u = rng.uniform(static_cast<uint64_t>(i));
    ASSERT_GE(u, 0.0);
    ASSERT_LT(u, 1.0);
    sum += u;
    ++buckets[static_cast<int>(u * 10)];
  }
  EXPECT_NEAR(sum / kN, 0.5, 0.01);
  for (int b : buckets) EXPECT_NEAR(b, kN / 10, kN / 100) << "a decile far from 10%";
}

// uniform_block (eight lanes at once where the CPU has AVX2) gives each element's own uniform, bit
// for bit: blocks of any length and start, across the 2^32 boundary of the counter's low word,
// for either draw.
TEST(CounterRng, ABlockOfDrawsIsTheDrawsOneByOne) {
  const CounterRng rng(2718, "attention.wan.720p", "q");
  const std::vector<uint64_t> starts = {0, 1, 7, 1000003, (uint64_t{1} << 32) - 13, (uint64_t{5} << 40) + 3};
  for (const uint64_t first : starts)
    for (const std::size_t n : {std::size_t{1}, std::size_t{8}, std::size_t{9}, std::size_t{64}, std::size_t{203}})
      for (const uint32_t draw : {0u, 1u}) {
        std::vector<double> block(n);
        rng.uniform_block(first, n, block.data(), draw);
        for (std::size_t j = 0; j < n; ++j)
          ASSERT_EQ(block[j], rng.uniform(first + j, draw)) << "first " << first << " n " << n << " j " << j << " draw " << draw;
      }
}

TEST(CounterRng, DrawsOfOneElementAreIndependent) {
  const CounterRng rng(7, "case", "x");
  std::set<uint64_t> seen;
  for (uint64_t i = 0; i < 100; ++i)
    for (uint32_t d = 0; d < 4; ++d) seen.insert(rng.bits(i, d));
  EXPECT_EQ(seen.size(), 400u);
}

}  // namespace
}  // namespace opcert
