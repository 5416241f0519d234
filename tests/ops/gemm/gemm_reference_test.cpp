// The gemm reference on hand-worked cases, NaN/Inf, sampling and speed.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include "ops/reference_test_util.h"

namespace opcert {
namespace {

using testing::CaseUnderTest;
using testing::expect_values;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

// a = [[1, 2, 3], [4, 5, 6]], b (nk) = [[1, 0, -1], [2, 1, 0]], bias = [10, 20]:
// c = [[1 - 3 + 10, 2 + 2 + 20], [4 - 6 + 10, 8 + 5 + 20]] = [[8, 24], [8, 33]].
CaseUnderTest hand_gemm(const std::string& layout) {
  CaseUnderTest t("gemm");
  t.input("a", OPCERT_DTYPE_F32, {2, 3}, {1, 2, 3, 4, 5, 6});
  if (layout == "nk") t.input("b", OPCERT_DTYPE_F32, {2, 3}, {1, 0, -1, 2, 1, 0});
  else t.input("b", OPCERT_DTYPE_F32, {3, 2}, {1, 2, 0, 1, -1, 0});
  t.input("bias", OPCERT_DTYPE_F32, {2}, {10, 20});
  t.output("c", OPCERT_DTYPE_F32, {2, 2}).attr("b_layout", layout);
  return t;
}

TEST(GemmReference, HandWorkedTwoByThree) {
  for (const std::string layout : {"nk", "kn"}) {
    const auto out = hand_gemm(layout).run();
    ASSERT_EQ(out.size(), 1u);
    EXPECT_EQ(out[0].name, "c");
    EXPECT_TRUE(out[0].indices.empty());
    EXPECT_TRUE(out[0].condition.empty());
    EXPECT_EQ(out[0].values, (std::vector<double>{8, 24, 8, 33})) << layout;
    // sum_k |a b| + |bias|
    EXPECT_EQ(out[0].magnitude, (std::vector<double>{14, 24, 20, 33})) << layout;
  }
}

TEST(GemmReference, NanAndInfPropagateAsIeee) {
  CaseUnderTest t("gemm");
  t.input("a", OPCERT_DTYPE_F32, {3, 3}, {kNaN, 0, 0, kInf, 5, 6, 1, 1, 1});
  t.input("b", OPCERT_DTYPE_F32, {2, 3}, {1, 0, -1, 0, 1, 0});
  t.output("c", OPCERT_DTYPE_F32, {3, 2});
  const auto out = t.run();
  // row 0: NaN * anything; row 1: inf*1 + 0 - 6 = inf, inf*0 = NaN; row 2: finite.
  expect_values(out[0].values, {kNaN, kNaN, kInf, kNaN, 0, 1}, 0, "c");
}

TEST(GemmReference, EmptyReductionGivesTheBias) {
  CaseUnderTest t("gemm");
  t.input("a", OPCERT_DTYPE_BF16, {2, 0}, {}).input("b", OPCERT_DTYPE_BF16, {3, 0}, {});
  t.input("bias", OPCERT_DTYPE_BF16, {3}, {1, -2, 3}).output("c", OPCERT_DTYPE_BF16, {2, 3});
  const auto out = t.run();
  EXPECT_EQ(out[0].values, (std::vector<double>{1, -2, 3, 1, -2, 3}));
  EXPECT_EQ(out[0].magnitude, (std::vector<double>{1, 2, 3, 1, 2, 3}));
}

TEST(GemmReference, SampleMatchesWhole) {
  for (const std::string layout : {"nk", "kn"}) {
    CaseUnderTest t("gemm");
    t.input("a", OPCERT_DTYPE_BF16, {7, 33}, testing::pseudo_random(7 * 33, 1));
    t.input("b", OPCERT_DTYPE_BF16, layout == "nk" ? std::vector<int64_t>{5, 33} : std::vector<int64_t>{33, 5},
            testing::pseudo_random(5 * 33, 2));
    t.input("bias", OPCERT_DTYPE_BF16, {5}, testing::pseudo_random(5, 3));
    t.output("c", OPCERT_DTYPE_BF16, {7, 5}).attr("b_layout", layout);
    testing::expect_sample_matches_whole(t, 3);
  }
}

TEST(GemmReference, SampledLargeGemmIsFast) {
  // 16384 x 16384 x 8192 bf16 with 4096 sampled elements: only the sampled dot products run.
  const int64_t m = 16384, n = 16384, k = 8192;
  CaseUnderTest t("gemm");
  t.c.inputs.push_back({"a", OPCERT_DTYPE_BF16, {m, k}, {}});
  t.c.inputs.push_back({"b", OPCERT_DTYPE_BF16, {n, k}, {}});
  t.c.outputs.push_back({"c", OPCERT_DTYPE_BF16, {m, n}, {}});
  for (const auto& spec : t.c.inputs) {
    HostTensor h(spec);
    auto bits = h.as<uint16_t>();
    for (std::size_t i = 0; i < bits.size(); ++i) bits[i] = static_cast<uint16_t>(0x3F80 + (i * 2654435761u >> 7) % 96);
    t.inputs.push_back(std::move(h));
  }
  SamplePlan plan;
  for (int64_t s = 0; s < 4096; ++s) plan["c"].push_back(s * (m * n / 4096) + (s * 7919) % 1000);
  const auto start = std::chrono::steady_clock::now();
  const auto out = t.run(plan);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("sampled 16384x16384x8192 bf16 gemm reference, 4096 elements: %.3f s\n", seconds);
  ASSERT_EQ(out[0].values.size(), 4096u);
  // Spot-check one element against a plain loop.
  const int64_t idx = plan["c"][100], row = idx / n, col = idx % n;
  double want = 0;
  for (int64_t i = 0; i < k; ++i) want += t.inputs[0].value(row * k + i) * t.inputs[1].value(col * k + i);
  EXPECT_NEAR(out[0].values[100], want, 1e-9 * out[0].magnitude[100]);
  EXPECT_LT(seconds, 10.0);  // well under a second on an idle machine; loose for shared CI
}

}  // namespace
}  // namespace opcert
