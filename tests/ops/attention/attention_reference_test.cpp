// attention reference on cases worked by hand: an easy softmax, causal bottom-right alignment
// (both Sq < Skv and Sq > Skv), sliding window, GQA head mapping, varlen with empty sequences,
// fp8 codes dequantized with per-(batch entry, KV head) descales, and fp8's floored magnitude.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "ops/reference_test_util.h"

namespace opcert {
namespace {

using testing::CaseUnderTest;
using testing::expect_values;
constexpr double kInf = std::numeric_limits<double>::infinity();

TEST(AttentionReference, TwoKeysWithAnEasySoftmax) {
  // scale = ln 3, q = [1, 0], k = [[0, 0], [1, 0]]: s = [0, ln 3], p = [1/4, 3/4].
  // v = [[4, -8], [8, 4]]: o = [1 + 6, -2 + 3] = [7, 1]; sum p|v| = [7, 5]; lse = ln 4.
  CaseUnderTest t("attention");
  t.input("q", OPCERT_DTYPE_F32, {1, 1, 1, 2}, {1, 0});
  t.input("k", OPCERT_DTYPE_F32, {1, 2, 1, 2}, {0, 0, 1, 0});
  t.input("v", OPCERT_DTYPE_F32, {1, 2, 1, 2}, {4, -8, 8, 4});
  t.output("o", OPCERT_DTYPE_F32, {1, 1, 1, 2}).output("lse", OPCERT_DTYPE_F32, {1, 1, 1});
  t.attr("scale", std::log(3.0));
  const auto out = t.run();
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].name, "o");
  expect_values(out[0].values, {7, 1}, 1e-14, "o");
  expect_values(out[0].magnitude, {7, 5}, 1e-14, "o magnitude");
  expect_values(out[0].condition, {std::log(3.0), std::log(3.0)}, 1e-14, "o condition");
  EXPECT_EQ(out[1].name, "lse");
  expect_values(out[1].values, {std::log(4.0)}, 1e-14, "lse");
  expect_values(out[1].magnitude, {1}, 0, "lse magnitude");
  expect_values(out[1].condition, {std::log(3.0)}, 1e-14, "lse condition");
}

TEST(AttentionReference, DefaultScaleIsOneOverSqrtD) {
  // D = 4, q = k1 = [1, 1, 1, 1]: s = [0, 4 / 2 = 2], p = [1, e^2] / (1 + e^2).
  CaseUnderTest t("attention");
  t.input("q", OPCERT_DTYPE_F32, {1, 1, 1, 4}, {1, 1, 1, 1});
  t.input("k", OPCERT_DTYPE_F32, {1, 2, 1, 4}, {0, 0, 0, 0, 1, 1, 1, 1});
  t.input("v", OPCERT_DTYPE_F32, {1, 2, 1, 4}, {0, 0, 0, 0, 1, 1, 1, 1});
  t.output("o", OPCERT_DTYPE_F32, {1, 1, 1, 4});
  const double p1 = std::exp(2.0) / (1 + std::exp(2.0));
  expect_values(t.run()[0].values, {p1, p1, p1, p1}, 1e-14, "o");
}

// Sq queries, Skv keys, D = 1, q = 0 (uniform weights over the allowed keys), v = 3, 6, 9, ...
CaseUnderTest uniform_case(int64_t sq, int64_t skv, int64_t window_left) {
  std::vector<double> v;
  for (int64_t j = 0; j < skv; ++j) v.push_back(3.0 * static_cast<double>(j + 1));
  CaseUnderTest t("attention");
  t.input("q", OPCERT_DTYPE_F32, {1, sq, 1, 1}, std::vector<double>(static_cast<std::size_t>(sq), 0.0));
  t.input("k", OPCERT_DTYPE_F32, {1, skv, 1, 1}, std::vector<double>(static_cast<std::size_t>(skv), 1.0));
  t.input("v", OPCERT_DTYPE_F32, {1, skv, 1, 1}, v);
  t.output("o", OPCERT_DTYPE_F32, {1, sq, 1, 1}).output("lse", OPCERT_DTYPE_F32, {1, 1, sq});
  t.attr("causal", int64_t{1}).attr("window_left", window_left);
  return t;
}

TEST(AttentionReference, CausalIsBottomRightAligned) {
  // Sq = 2, Skv = 3: query 0 sees keys 0..1, query 1 sees keys 0..2.
  const auto out = uniform_case(2, 3, -1).run();
  expect_values(out[0].values, {4.5, 6}, 1e-14, "o");
  expect_values(out[1].values, {std::log(2.0), std::log(3.0)}, 1e-14, "lse");
}

TEST(AttentionReference, QueryWithoutKeysGivesZeroAndMinusInfinity) {
  // Sq = 3, Skv = 2: query 0 sees no key, query 1 sees key 0, query 2 keys 0..1.
  const auto out = uniform_case(3, 2, -1).run();
  expect_values(out[0].values, {0, 3, 4.5}, 1e-14, "o");
  expect_values(out[0].magnitude, {0, 3, 4.5}, 1e-14, "o magnitude");
  expect_values(out[0].condition, {1, 0, 0}, 0, "o condition");  // s = 0 on allowed keys
  expect_values(out[1].values, {-kInf, 0, std::log(2.0)}, 1e-14, "lse");
}

TEST(AttentionReference, SlidingWindow) {
  // Sq = Skv = 3, causal, window_left = 1: query i sees keys i-1..i.
  const auto out = uniform_case(3, 3, 1).run();
  expect_values(out[0].values, {3, 4.5, 7.5}, 1e-14, "o");
  // window_left = 0: each query sees only its own key.
  expect_values(uniform_case(3, 3, 0).run()[0].values, {3, 6, 9}, 1e-14, "o");
}

TEST(AttentionReference, GroupedQueryHeadsShareTheirKeyHead) {
  // Hq = 4, Hkv = 2: heads 0, 1 read kv head 0 (v = 1); heads 2, 3 read kv head 1 (v = 2).
  CaseUnderTest t("attention");
  t.input("q", OPCERT_DTYPE_BF16, {1, 1, 4, 1}, {0, 0, 0, 0});
  t.input("k", OPCERT_DTYPE_BF16, {1, 1, 2, 1}, {1, 1});
  t.input("v", OPCERT_DTYPE_BF16, {1, 1, 2, 1}, {1, 2});
  t.output("o", OPCERT_DTYPE_BF16, {1, 1, 4, 1});
  expect_values(t.run()[0].values, {1, 1, 2, 2}, 0, "o");
}

TEST(AttentionReference, VarlenWithEmptySequences) {
  // Four sequences: (Sq 2, Skv 1), (1, 0), (0, 2), (1, 2); v = 10, 20, 30, 40, 50, q = 0.
  CaseUnderTest t("attention");
  t.input("q", OPCERT_DTYPE_F32, {4, 1, 1}, {0, 0, 0, 0});
  t.input("k", OPCERT_DTYPE_F32, {5, 1, 1}, {1, 1, 1, 1, 1});
  t.input("v", OPCERT_DTYPE_F32, {5, 1, 1}, {10, 20, 30, 40, 50});
  t.input("cu_seqlens_q", OPCERT_DTYPE_I32, {5}, {0, 2, 3, 3, 4});
  t.input("cu_seqlens_k", OPCERT_DTYPE_I32, {5}, {0, 1, 1, 3, 5});
  t.output("o", OPCERT_DTYPE_F32, {4, 1, 1}).output("lse", OPCERT_DTYPE_F32, {1, 4});
  const auto out = t.run();
  expect_values(out[0].values, {10, 10, 0, 45}, 1e-14, "o");
  expect_values(out[1].values, {0, 0, -kInf, std::log(2.0)}, 1e-14, "lse");
}

TEST(AttentionReference, NanInAMaskedValueDoesNotLeak) {
  // Causal, Sq = Skv = 2: query 0 never sees key 1, whose value is NaN.
  CaseUnderTest t("attention");
  t.input("q", OPCERT_DTYPE_F32, {1, 2, 1, 1}, {0, 0});
  t.input("k", OPCERT_DTYPE_F32, {1, 2, 1, 1}, {1, 1});
  t.input("v", OPCERT_DTYPE_F32, {1, 2, 1, 1}, {5, std::numeric_limits<double>::quiet_NaN()});
  t.output("o", OPCERT_DTYPE_F32, {1, 2, 1, 1}).attr("causal", int64_t{1});
  expect_values(t.run()[0].values, {5, std::numeric_limits<double>::quiet_NaN()}, 0, "o");
}

TEST(AttentionReference, Fp8CodesTimesTheDescaleOfTheirBatchEntryAndKvHead) {
  // B 2, Sq 1, Skv 2, Hq 2 over Hkv 1, D 2, scale ln 3. Codes: q heads [1, 0] and [2, 0];
  // k [[0, 0], [1, 0]]; v [[4, -8], [8, 4]]; the same in both batch entries.
  // Entry 0: q x 0.5, k x 2, v x 0.25: head 0 s = [0, ln 3], p = [1/4, 3/4], o = [1.75, 0.25];
  //          head 1 s = [0, 2 ln 3], p = [1/10, 9/10], o = [1.9, 0.7].
  // Entry 1: no scaling (descale 1): head 0 o = [7, 1], head 1 o = [7.6, 2.8].
  CaseUnderTest t("attention");
  const opcert_dtype e4m3 = OPCERT_DTYPE_F8_E4M3FN;
  t.input("q", e4m3, {2, 1, 2, 2}, {1, 0, 2, 0, 1, 0, 2, 0});
  t.input("k", e4m3, {2, 2, 1, 2}, {0, 0, 1, 0, 0, 0, 1, 0});
  t.input("v", e4m3, {2, 2, 1, 2}, {4, -8, 8, 4, 4, -8, 8, 4});
  t.input("q_descale", OPCERT_DTYPE_F32, {2, 1}, {0.5, 1});
  t.input("k_descale", OPCERT_DTYPE_F32, {2, 1}, {2, 1});
  t.input("v_descale", OPCERT_DTYPE_F32, {2, 1}, {0.25, 1});
  t.output("o", OPCERT_DTYPE_BF16, {2, 1, 2, 2}).output("lse", OPCERT_DTYPE_F32, {2, 2, 1});
  t.attr("scale", std::log(3.0));
  const auto out = t.run();
  expect_values(out[0].values, {1.75, 0.25, 1.9, 0.7, 7, 1, 7.6, 2.8}, 1e-14, "o");
  // sum p|v|, of the dequantized v.
  expect_values(out[0].magnitude, {1.75, 1.25, 1.9, 1.1, 7, 5, 7.6, 4.4}, 1e-14, "o magnitude");
  expect_values(out[1].values, {std::log(4.0), std::log(10.0), std::log(4.0), std::log(10.0)}, 1e-14, "lse");
}

TEST(AttentionReference, Fp8MagnitudeFloorsWhatAShiftedE4m3PHoldsCoarsely) {
  // D 1, scale 20, q = 1, k = [0, -1]: s = [0, -20], e = [1, e^-20], below 2^-14. v = [1, 448].
  // o = (1 + 448 e^-20) / l with l = 1 + e^-20; an fp8 magnitude takes e^-20 as 2^-14.
  for (const opcert_dtype dtype : {OPCERT_DTYPE_F8_E4M3FN, OPCERT_DTYPE_BF16}) {
    CaseUnderTest t("attention");
    t.input("q", dtype, {1, 1, 1, 1}, {1});
    t.input("k", dtype, {1, 2, 1, 1}, {0, -1});
    t.input("v", dtype, {1, 2, 1, 1}, {1, 448});
    t.output("o", OPCERT_DTYPE_BF16, {1, 1, 1, 1}).attr("scale", 20.0);
    const double l = 1 + std::exp(-20.0);
    const auto out = t.run();
    expect_values(out[0].values, {(1 + 448 * std::exp(-20.0)) / l}, 1e-14, "o");
    const double magnitude = dtype == OPCERT_DTYPE_BF16 ? (1 + 448 * std::exp(-20.0)) / l : (1 + 448 * 0x1.0p-14) / l;
    expect_values(out[0].magnitude, {magnitude}, 1e-14, "o magnitude");
  }
}

TEST(AttentionReference, SampleMatchesWhole) {
  CaseUnderTest t("attention");
  const int64_t b = 2, sq = 5, skv = 7, hq = 4, hkv = 2, d = 8;
  t.input("q", OPCERT_DTYPE_BF16, {b, sq, hq, d}, testing::pseudo_random(b * sq * hq * d, 11, -2, 2));
  t.input("k", OPCERT_DTYPE_BF16, {b, skv, hkv, d}, testing::pseudo_random(b * skv * hkv * d, 12, -2, 2));
  t.input("v", OPCERT_DTYPE_BF16, {b, skv, hkv, d}, testing::pseudo_random(b * skv * hkv * d, 13));
  t.output("o", OPCERT_DTYPE_BF16, {b, sq, hq, d}).output("lse", OPCERT_DTYPE_F32, {b, hq, sq});
  t.attr("causal", int64_t{1}).attr("window_left", int64_t{3});
  testing::expect_sample_matches_whole(t, 7);

  CaseUnderTest v("attention");
  v.input("q", OPCERT_DTYPE_F32, {6, 2, 4}, testing::pseudo_random(48, 21));
  v.input("k", OPCERT_DTYPE_F32, {5, 1, 4}, testing::pseudo_random(20, 22));
  v.input("v", OPCERT_DTYPE_F32, {5, 1, 4}, testing::pseudo_random(20, 23));
  v.input("cu_seqlens_q", OPCERT_DTYPE_I32, {4}, {0, 3, 3, 6});
  v.input("cu_seqlens_k", OPCERT_DTYPE_I32, {4}, {0, 2, 4, 5});
  v.output("o", OPCERT_DTYPE_F32, {6, 2, 4}).output("lse", OPCERT_DTYPE_F32, {2, 6}).attr("causal", int64_t{1});
  testing::expect_sample_matches_whole(v, 3);
}

}  // namespace
}  // namespace opcert
