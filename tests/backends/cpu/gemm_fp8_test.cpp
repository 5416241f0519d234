// cpu.gemm_fp8.blocked against docs/OPS.md (gemm_fp8), through the C ABI: every scaling mode,
// both fp8 formats on each side, every output dtype; exact cases bit for bit, random cases
// within the fp32-accumulation bound of a double reference.
#include <gtest/gtest.h>

#include <cmath>

#include "backends/cpu/gemm_test_support.h"

namespace opcert::test::cpugemm {
namespace {

constexpr const char* kKey = "cpu.gemm_fp8.blocked";
constexpr int64_t kBlock = 128;

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

struct Fp8Problem {
  std::string scaling;
  int64_t m, n, k;
  Tensor a, b, a_scale, b_scale, bias, c;
  bool has_bias;

  Fp8Problem(std::string scaling_, int32_t a_dtype, int32_t b_dtype, int32_t out, int64_t m_, int64_t n_, int64_t k_,
             bool bias_)
      : scaling(std::move(scaling_)),
        m(m_),
        n(n_),
        k(k_),
        a("a", a_dtype, {m_, k_}),
        b("b", b_dtype, {n_, k_}),
        a_scale("a_scale", OPCERT_DTYPE_F32, scale_shape(true)),
        b_scale("b_scale", OPCERT_DTYPE_F32, scale_shape(false)),
        bias("bias", out, {n_}),
        c("c", out, {m_, n_}),
        has_bias(bias_) {}

  std::vector<int64_t> scale_shape(bool for_a) const {
    if (scaling == "channel") return {for_a ? m : n};
    if (scaling == "block") return for_a ? std::vector<int64_t>{m, ceil_div(k, kBlock)}
                                         : std::vector<int64_t>{ceil_div(n, kBlock), ceil_div(k, kBlock)};
    return {1};
  }

  // The contract's formula in double, and the absolute sum of its scaled terms.
  std::pair<double, double> want(int64_t i, int64_t j) const {
    double sum = 0.0, mag = 0.0;
    const int64_t blocks = ceil_div(k, kBlock);
    for (int64_t blk = 0; blk < blocks; ++blk) {
      double s = 1.0;
      if (scaling == "tensor") s = a_scale.get(0) * b_scale.get(0);
      if (scaling == "channel") s = a_scale.get(i) * b_scale.get(j);
      if (scaling == "block") s = a_scale.get(i * blocks + blk) * b_scale.get((j / kBlock) * blocks + blk);
      for (int64_t d = blk * kBlock; d < std::min(k, (blk + 1) * kBlock); ++d) {
        const double p = a.get(i * k + d) * b.get(j * k + d);
        sum += s * p;
        mag += std::fabs(s * p);
      }
    }
    if (has_bias) {
      sum += bias.get(j);
      mag += std::fabs(bias.get(j));
    }
    return {sum, mag};
  }

  Outcome run(Session& s) {
    std::vector<Tensor*> inputs{&a, &b, &a_scale, &b_scale};
    if (has_bias) inputs.push_back(&bias);
    return s.run(kKey, inputs, {&c}, {Attr::text("scaling", scaling)});
  }
};

constexpr int32_t kE4m3 = OPCERT_DTYPE_F8_E4M3FN;
constexpr int32_t kE5m2 = OPCERT_DTYPE_F8_E5M2;

TEST(GemmFp8, PowerOfTwoScalesAndSmallIntegersAreExactForEveryModeAndOutput) {
  // Integers in [-4, 4] are exact in both fp8 formats; scales are powers of two, different per
  // row, column and block, so any misplaced scale changes the value.
  // M = 6 takes the few-row (decode) path, M = 20 the packed, blocked one.
  Session session;
  for (int64_t m : {6, 20})
  for (const char* scaling : {"tensor", "channel", "block"}) {
    for (int32_t out : {OPCERT_DTYPE_F32, OPCERT_DTYPE_BF16, OPCERT_DTYPE_F16}) {
      Fp8Problem p(scaling, kE4m3, kE5m2, out, m, 200, 300, true);
      Random rng(21);
      rng.fill_integers(p.a, -4, 4);
      rng.fill_integers(p.b, -4, 4);
      for (int64_t i = 0; i < p.a_scale.numel(); ++i) p.a_scale.set(i, std::ldexp(1.0, static_cast<int>(rng.integer(-3, 3))));
      for (int64_t i = 0; i < p.b_scale.numel(); ++i) p.b_scale.set(i, std::ldexp(1.0, static_cast<int>(rng.integer(-3, 3))));
      rng.fill_integers(p.bias, -8, 8);
      ASSERT_EQ(p.run(session).code, OPCERT_ERROR_OK) << scaling;
      Tensor expected("c", out, {p.m, p.n});
      for (int64_t i = 0; i < p.m; ++i)
        for (int64_t j = 0; j < p.n; ++j) expected.set(i * p.n + j, p.want(i, j).first);
      for (int64_t e = 0; e < p.m * p.n; ++e)
        ASSERT_EQ(p.c.bits(e), expected.bits(e)) << scaling << " m=" << m << " out dtype " << out << " at " << e;
      EXPECT_TRUE(p.c.guards_intact());
    }
  }
}

TEST(GemmFp8, BlockScalingWithAPartialLastBlockMatchesTheFormula) {
  // K = 300: blocks of 128, 128 and 44; N = 200: B scale rows for columns [0, 128) and [128, 200).
  Session session;
  for (auto [da, db] : {std::pair{kE4m3, kE4m3}, {kE5m2, kE4m3}, {kE4m3, kE5m2}, {kE5m2, kE5m2}}) {
    Fp8Problem p("block", da, db, OPCERT_DTYPE_F32, da == db ? 19 : 3, 200, 300, false);
    Random rng(33);
    rng.fill(p.a, -8, 8);
    rng.fill(p.b, -8, 8);
    rng.fill(p.a_scale, 0.01, 2);
    rng.fill(p.b_scale, 0.01, 2);
    ASSERT_EQ(p.run(session).code, OPCERT_ERROR_OK);
    for (int64_t i = 0; i < p.m; ++i)
      for (int64_t j = 0; j < p.n; ++j) {
        const auto [want, mag] = p.want(i, j);
        ASSERT_NEAR(p.c.get(i * p.n + j), want, gemm_tolerance(OPCERT_DTYPE_F32, want, mag, kBlock + 3))
            << da << "x" << db << " at (" << i << ", " << j << ")";
      }
    EXPECT_TRUE(p.c.guards_intact());
  }
}

TEST(GemmFp8, BlockScalesOfManyRowsSpanningSeveralRowBands) {
  // Exact data and power-of-two scales: each of 1201 rows has its own scale per K block.
  Session session;
  Fp8Problem p("block", kE4m3, kE4m3, OPCERT_DTYPE_F32, 1201, 130, 300, false);
  Random rng(66);
  rng.fill_integers(p.a, -4, 4);
  rng.fill_integers(p.b, -4, 4);
  for (int64_t i = 0; i < p.a_scale.numel(); ++i) p.a_scale.set(i, std::ldexp(1.0, static_cast<int>(rng.integer(-4, 4))));
  for (int64_t i = 0; i < p.b_scale.numel(); ++i) p.b_scale.set(i, std::ldexp(1.0, static_cast<int>(rng.integer(-4, 4))));
  ASSERT_EQ(p.run(session).code, OPCERT_ERROR_OK);
  for (int64_t i = 0; i < p.m; ++i)
    for (int64_t j = 0; j < p.n; ++j) ASSERT_EQ(p.c.get(i * p.n + j), p.want(i, j).first) << i << "," << j;
  EXPECT_TRUE(p.c.guards_intact());
}

TEST(GemmFp8, ChannelAndTensorScalingWithBiasInBf16) {
  Session session;
  for (const char* scaling : {"tensor", "channel"}) {
    Fp8Problem p(scaling, kE4m3, kE4m3, OPCERT_DTYPE_BF16, 17, 45, 333, true);
    Random rng(44);
    rng.fill(p.a, -100, 100);
    rng.fill(p.b, -100, 100);
    rng.fill(p.a_scale, 0.001, 0.01);
    rng.fill(p.b_scale, 0.001, 0.01);
    rng.fill(p.bias, -5, 5);
    ASSERT_EQ(p.run(session).code, OPCERT_ERROR_OK);
    for (int64_t i = 0; i < p.m; ++i)
      for (int64_t j = 0; j < p.n; ++j) {
        const auto [want, mag] = p.want(i, j);
        ASSERT_NEAR(p.c.get(i * p.n + j), want, gemm_tolerance(OPCERT_DTYPE_BF16, want, mag, p.k)) << scaling;
      }
  }
}

TEST(GemmFp8, E4m3SaturatedValuesAndNanInputs) {
  // 448 is e4m3fn's largest value; 0x7F is its NaN, which must reach every output of its row.
  Session session;
  Fp8Problem p("tensor", kE4m3, kE4m3, OPCERT_DTYPE_F32, 2, 3, 4, false);
  for (int64_t e = 0; e < 8; ++e) p.a.set(e, 448.0);
  for (int64_t e = 0; e < 12; ++e) p.b.set(e, 1.0);
  p.a.data()[4] = 0x7F;
  p.a_scale.set(0, 0.5);
  p.b_scale.set(0, 0.25);
  ASSERT_EQ(p.run(session).code, OPCERT_ERROR_OK);
  for (int64_t j = 0; j < 3; ++j) {
    EXPECT_EQ(p.c.get(j), 448.0 * 4 * 0.125);
    EXPECT_TRUE(std::isnan(p.c.get(3 + j)));
  }
}

TEST(GemmFp8, KZeroAndEmptyOutputs) {
  Session session;
  Fp8Problem zero_k("block", kE4m3, kE4m3, OPCERT_DTYPE_BF16, 2, 3, 0, true);
  for (int64_t j = 0; j < 3; ++j) zero_k.bias.set(j, static_cast<double>(j + 1));
  ASSERT_EQ(zero_k.run(session).code, OPCERT_ERROR_OK);
  for (int64_t e = 0; e < 6; ++e) EXPECT_EQ(zero_k.c.get(e), static_cast<double>(e % 3 + 1));
  Fp8Problem empty("channel", kE4m3, kE4m3, OPCERT_DTYPE_F32, 0, 5, 16, false);
  ASSERT_EQ(empty.run(session).code, OPCERT_ERROR_OK);
  EXPECT_TRUE(empty.c.guards_intact());
}

TEST(GemmFp8, QueryNamesMissingAndMisshapenScales) {
  Session session;
  Fp8Problem p("block", kE4m3, kE4m3, OPCERT_DTYPE_BF16, 4, 130, 300, false);
  const std::vector<Attr> block{Attr::text("scaling", "block")};
  EXPECT_TRUE(session.query(kKey, {&p.a, &p.b, &p.a_scale, &p.b_scale}, {&p.c}, block).supported);

  Outcome missing = session.query(kKey, {&p.a, &p.b, &p.b_scale}, {&p.c}, block);
  EXPECT_FALSE(missing.supported);
  EXPECT_EQ(missing.message, "missing input 'a_scale'");

  // Block scales given to channel scaling: a_scale must be [M].
  Outcome channel = session.query(kKey, {&p.a, &p.b, &p.a_scale, &p.b_scale}, {&p.c}, {Attr::text("scaling", "channel")});
  EXPECT_FALSE(channel.supported);
  EXPECT_NE(channel.message.find("a_scale has shape [4, 3], expected [M] = [4]"), std::string::npos) << channel.message;

  Tensor b_scale_bad("b_scale", OPCERT_DTYPE_F32, {1, 3});
  Outcome blocks = session.query(kKey, {&p.a, &p.b, &p.a_scale, &b_scale_bad}, {&p.c}, block);
  EXPECT_FALSE(blocks.supported);
  EXPECT_NE(blocks.message.find("expected [ceil(N/128), ceil(K/128)] = [2, 3]"), std::string::npos) << blocks.message;

  Tensor c_int("c", OPCERT_DTYPE_I32, {4, 130});
  Outcome out = session.query(kKey, {&p.a, &p.b, &p.a_scale, &p.b_scale}, {&c_int}, block);
  EXPECT_FALSE(out.supported);
  EXPECT_NE(out.message.find("c must be bf16/fp16/fp32 (got int32)"), std::string::npos) << out.message;

  Tensor a_bf16("a", OPCERT_DTYPE_BF16, {4, 300});
  Outcome in = session.query(kKey, {&a_bf16, &p.b, &p.a_scale, &p.b_scale}, {&p.c}, block);
  EXPECT_FALSE(in.supported);
  EXPECT_NE(in.message.find("a must be fp8_e4m3fn/fp8_e5m2 (got bf16)"), std::string::npos) << in.message;

  Outcome mode = session.query(kKey, {&p.a, &p.b, &p.a_scale, &p.b_scale}, {&p.c}, {Attr::text("scaling", "row")});
  EXPECT_FALSE(mode.supported);
  EXPECT_NE(mode.message.find("scaling"), std::string::npos);
}

}  // namespace
}  // namespace opcert::test::cpugemm
