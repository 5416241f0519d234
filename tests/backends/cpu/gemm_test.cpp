// cpu.gemm.blocked against the contract of docs/OPS.md (gemm), through the C ABI: exact integer
// cases bit for bit, random cases within the fp32-accumulation bound of a double reference,
// empty and degenerate shapes, NaN/Inf propagation, and the query's reasons.
#include <gtest/gtest.h>
#include <omp.h>

#include <cmath>
#include <limits>

#include "backends/cpu/gemm_test_support.h"

namespace opcert::test::cpugemm {
namespace {

constexpr const char* kKey = "cpu.gemm.blocked";

struct Problem {
  Tensor a, b, bias, c;
  bool kn = false;
  bool has_bias = false;
  int64_t m, n, k;

  Problem(int32_t dtype, int64_t m_, int64_t n_, int64_t k_, bool kn_, bool bias_)
      : a("a", dtype, {m_, k_}),
        b("b", dtype, kn_ ? std::vector<int64_t>{k_, n_} : std::vector<int64_t>{n_, k_}),
        bias("bias", dtype, {n_}),
        c("c", dtype, {m_, n_}),
        kn(kn_),
        has_bias(bias_),
        m(m_),
        n(n_),
        k(k_) {}

  double b_at(int64_t col, int64_t depth) const { return kn ? b.get(depth * n + col) : b.get(col * k + depth); }

  // The exact result (in double) and the absolute sum of its terms.
  std::pair<double, double> want(int64_t row, int64_t col) const {
    double sum = 0.0, mag = 0.0;
    for (int64_t d = 0; d < k; ++d) {
      const double p = a.get(row * k + d) * b_at(col, d);
      sum += p;
      mag += std::fabs(p);
    }
    if (has_bias) {
      sum += bias.get(col);
      mag += std::fabs(bias.get(col));
    }
    return {sum, mag};
  }

  Outcome run(Session& s) {
    std::vector<Tensor*> inputs{&a, &b};
    if (has_bias) inputs.push_back(&bias);
    return s.run(kKey, inputs, {&c}, {Attr::text("b_layout", kn ? "kn" : "nk")});
  }
};

const char* name_of(int32_t dtype) {
  return dtype == OPCERT_DTYPE_F32 ? "fp32" : dtype == OPCERT_DTYPE_F16 ? "fp16" : "bf16";
}

class GemmDtypes : public ::testing::TestWithParam<int32_t> {};

TEST_P(GemmDtypes, SmallIntegersAreExactBitForBitInBothLayouts) {
  Session session;
  // M = 5 takes the few-row (decode) path, M = 23 the packed, blocked one.
  for (int64_t m : {5, 23}) {
  for (bool kn : {false, true}) {
    for (bool bias : {false, true}) {
      Problem p(GetParam(), m, 7, 19, kn, bias);
      Random rng(11);
      rng.fill_integers(p.a, -3, 3);
      rng.fill_integers(p.b, -3, 3);
      rng.fill_integers(p.bias, -20, 20);
      ASSERT_EQ(p.run(session).code, OPCERT_ERROR_OK);
      Tensor expected("c", GetParam(), {p.m, p.n});
      for (int64_t i = 0; i < p.m; ++i)
        for (int64_t j = 0; j < p.n; ++j) expected.set(i * p.n + j, p.want(i, j).first);
      for (int64_t e = 0; e < p.m * p.n; ++e)
        ASSERT_EQ(p.c.bits(e), expected.bits(e)) << name_of(GetParam()) << " m=" << m << " kn=" << kn << " bias=" << bias << " @" << e;
      EXPECT_TRUE(p.c.guards_intact());
    }
  }
  }
}

TEST_P(GemmDtypes, RandomValuesMatchTheDoubleFormulaAcrossCacheBlocks) {
  // M, N, K past one register tile, one K block (256) and one N block; K odd, N odd.
  Session session;
  for (bool kn : {false, true}) {
    Problem p(GetParam(), 37, 301, 517, kn, true);
    Random rng(7);
    rng.fill(p.a, -1, 1);
    rng.fill(p.b, -1, 1);
    rng.fill(p.bias, -1, 1);
    ASSERT_EQ(p.run(session).code, OPCERT_ERROR_OK);
    for (int64_t i = 0; i < p.m; ++i)
      for (int64_t j = 0; j < p.n; ++j) {
        const auto [want, mag] = p.want(i, j);
        ASSERT_NEAR(p.c.get(i * p.n + j), want, gemm_tolerance(GetParam(), want, mag, p.k))
            << name_of(GetParam()) << " kn=" << kn << " at (" << i << ", " << j << ")";
      }
    EXPECT_TRUE(p.c.guards_intact());
  }
}

TEST_P(GemmDtypes, DecodeShapesWithFewRows) {
  Session session;
  for (auto [m, kn] : {std::pair<int64_t, bool>{1, false}, {1, true}, {7, false}, {6, true}}) {
  Problem p(GetParam(), m, 300, 1000, kn, true);
  Random rng(3);
  rng.fill(p.a, -1, 1);
  rng.fill(p.b, -1, 1);
  rng.fill(p.bias, -1, 1);
  ASSERT_EQ(p.run(session).code, OPCERT_ERROR_OK);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < p.n; ++j) {
      const auto [want, mag] = p.want(i, j);
      ASSERT_NEAR(p.c.get(i * p.n + j), want, gemm_tolerance(GetParam(), want, mag, p.k)) << m << " kn=" << kn << " " << j;
    }
  EXPECT_TRUE(p.c.guards_intact());
  }
}

TEST_P(GemmDtypes, KZeroGivesTheBiasOrZeros) {
  Session session;
  for (bool bias : {false, true}) {
    Problem p(GetParam(), 3, 5, 0, false, bias);
    for (int64_t j = 0; j < 5; ++j) p.bias.set(j, static_cast<double>(j) - 2.5);
    ASSERT_EQ(p.run(session).code, OPCERT_ERROR_OK);
    for (int64_t i = 0; i < 3; ++i)
      for (int64_t j = 0; j < 5; ++j) EXPECT_EQ(p.c.get(i * 5 + j), bias ? static_cast<double>(j) - 2.5 : 0.0);
    EXPECT_TRUE(p.c.guards_intact());
  }
}

TEST_P(GemmDtypes, EmptyOutputsWriteNothing) {
  Session session;
  for (auto [m, n] : {std::pair<int64_t, int64_t>{0, 4}, {4, 0}, {0, 0}}) {
    Problem p(GetParam(), m, n, 8, false, true);
    ASSERT_EQ(p.run(session).code, OPCERT_ERROR_OK) << m << "x" << n;
    EXPECT_TRUE(p.c.guards_intact());
  }
}

TEST_P(GemmDtypes, NanAndInfinityPropagateAsInTheFormula) {
  Session session;
  Problem p(GetParam(), 3, 4, 20, false, false);
  Random rng(5);
  rng.fill_integers(p.a, 1, 2);
  rng.fill_integers(p.b, 1, 2);
  const double inf = std::numeric_limits<double>::infinity();
  p.a.set(0 * 20 + 3, std::nan(""));  // row 0 all NaN
  p.a.set(1 * 20 + 4, inf);            // row 1: +inf where b > 0 ...
  p.b.set(2 * 20 + 4, 0.0);            // ... and inf * 0 = NaN in column 2
  p.b.set(3 * 20 + 4, -1.0);           // ... and -inf in column 3
  ASSERT_EQ(p.run(session).code, OPCERT_ERROR_OK);
  for (int64_t j = 0; j < 4; ++j) EXPECT_TRUE(std::isnan(p.c.get(j))) << j;
  EXPECT_EQ(p.c.get(4 + 0), inf);
  EXPECT_EQ(p.c.get(4 + 1), inf);
  EXPECT_TRUE(std::isnan(p.c.get(4 + 2)));
  EXPECT_EQ(p.c.get(4 + 3), -inf);
  for (int64_t j = 0; j < 4; ++j) EXPECT_TRUE(std::isfinite(p.c.get(8 + j))) << j;
}

INSTANTIATE_TEST_SUITE_P(Cpu, GemmDtypes, ::testing::Values(OPCERT_DTYPE_F32, OPCERT_DTYPE_F16, OPCERT_DTYPE_BF16),
                         [](const auto& info) { return std::string(name_of(info.param)); });

// Inputs whose products meet the fp32 subnormal range: bf16 subnormals times large values, and
// normal values whose products are subnormal. The exact sums are representable, so the result is
// the exact sum rounded once, bit for bit, on every path: vdpbf16ps, which would flush both to
// zero, must leave such calls to the fp32 kernel (gemm_pack_pairs.h).
TEST(Gemm, Bf16SubnormalInputsAndProductsGiveTheExactSum) {
  Session session;
  struct Scale {
    const char* what;
    double a, b;  // A holds integers times a, B integers times b
  };
  for (const Scale scale : {Scale{"subnormal a", 0x1p-133, 0x1p100}, Scale{"subnormal products", 0x1p-66, 0x1p-66}}) {
    // M = 5: the few-row dot products; M = 45: the packed, blocked kernels.
    for (int64_t m : {5, 45}) {
      for (bool kn : {false, true}) {
        Problem p(OPCERT_DTYPE_BF16, m, 40, 64, kn, false);
        Random rng(17);
        for (int64_t e = 0; e < p.a.numel(); ++e) p.a.set(e, scale.a * static_cast<double>(rng.integer(-3, 3)));
        for (int64_t e = 0; e < p.b.numel(); ++e) p.b.set(e, scale.b * static_cast<double>(rng.integer(-3, 3)));
        ASSERT_EQ(p.run(session).code, OPCERT_ERROR_OK);
        Tensor expected("c", OPCERT_DTYPE_BF16, {p.m, p.n});
        for (int64_t i = 0; i < p.m; ++i)
          for (int64_t j = 0; j < p.n; ++j) expected.set(i * p.n + j, p.want(i, j).first);
        int64_t nonzero = 0;
        for (int64_t e = 0; e < p.m * p.n; ++e) {
          ASSERT_EQ(p.c.bits(e), expected.bits(e)) << scale.what << " m=" << m << " kn=" << kn << " @" << e;
          nonzero += expected.get(e) != 0.0;
        }
        EXPECT_GT(nonzero, p.m * p.n / 2) << scale.what;  // a flush to zero would show
      }
    }
  }
}

TEST(Gemm, ManyRowsSpanSeveralRowBandsExactly) {
  // M past the driver's band of M blocks that share one packed B block (4 x 140 rows).
  Session session;
  for (int32_t dtype : {OPCERT_DTYPE_F32, OPCERT_DTYPE_BF16}) {
    Problem p(dtype, 1201, 45, 300, false, true);
    Random rng(13);
    rng.fill_integers(p.a, -3, 3);
    rng.fill_integers(p.b, -3, 3);
    rng.fill_integers(p.bias, -9, 9);
    ASSERT_EQ(p.run(session).code, OPCERT_ERROR_OK);
    Tensor expected("c", dtype, {p.m, p.n});  // the exact sum, rounded once
    for (int64_t i = 0; i < p.m; ++i)
      for (int64_t j = 0; j < p.n; ++j) expected.set(i * p.n + j, p.want(i, j).first);
    for (int64_t e = 0; e < p.m * p.n; ++e) ASSERT_EQ(p.c.bits(e), expected.bits(e)) << e;
    EXPECT_TRUE(p.c.guards_intact());
  }
}

TEST(Gemm, ResultDoesNotDependOnTheThreadCount) {
  Session session;
  Problem one(OPCERT_DTYPE_F32, 200, 300, 513, false, true), two = one;
  Random rng(9);
  rng.fill(one.a, -1, 1);
  rng.fill(one.b, -1, 1);
  rng.fill(one.bias, -1, 1);
  two = one;
  const int saved = omp_get_max_threads();
  omp_set_num_threads(1);
  ASSERT_EQ(one.run(session).code, OPCERT_ERROR_OK);
  omp_set_num_threads(4);
  ASSERT_EQ(two.run(session).code, OPCERT_ERROR_OK);
  omp_set_num_threads(saved);
  EXPECT_EQ(one.c.storage, two.c.storage);
}

TEST(Gemm, AllowTf32IsAcceptedAndChangesNothing) {
  // Full fp32 is at least as accurate as the TF32 rounding allow_tf32 permits (docs/OPS.md#gemm):
  // the backend takes the attribute and computes the same bits as without it.
  Session session;
  Problem plain(OPCERT_DTYPE_F32, 9, 13, 70, false, true);
  Random rng(21);
  rng.fill(plain.a, -1, 1);
  rng.fill(plain.b, -1, 1);
  rng.fill(plain.bias, -1, 1);
  Problem allowed = plain;
  ASSERT_EQ(plain.run(session).code, OPCERT_ERROR_OK);
  EXPECT_TRUE(session.query(kKey, {&allowed.a, &allowed.b, &allowed.bias}, {&allowed.c}, {Attr::integer("allow_tf32", 1)})
                  .supported);
  ASSERT_EQ(session.run(kKey, {&allowed.a, &allowed.b, &allowed.bias}, {&allowed.c}, {Attr::integer("allow_tf32", 1)}).code,
            OPCERT_ERROR_OK);
  EXPECT_EQ(allowed.c.storage, plain.c.storage);
}

TEST(Gemm, QueryExplainsWhatItDeclines) {
  Session session;
  Tensor a("a", OPCERT_DTYPE_F32, {4, 8}), b("b", OPCERT_DTYPE_F32, {6, 8}), c("c", OPCERT_DTYPE_F32, {4, 6});
  EXPECT_TRUE(session.query(kKey, {&a, &b}, {&c}).supported);

  Tensor b16("b", OPCERT_DTYPE_F16, {6, 8});
  Outcome mixed = session.query(kKey, {&a, &b16}, {&c});
  EXPECT_FALSE(mixed.supported);
  EXPECT_NE(mixed.message.find("b is fp16"), std::string::npos) << mixed.message;

  Tensor a8("a", OPCERT_DTYPE_I8, {4, 8}), c8("c", OPCERT_DTYPE_I8, {4, 6}), b8("b", OPCERT_DTYPE_I8, {6, 8});
  Outcome int8 = session.query(kKey, {&a8, &b8}, {&c8});
  EXPECT_FALSE(int8.supported);
  EXPECT_NE(int8.message.find("a must be fp32/fp16/bf16 (got int8)"), std::string::npos) << int8.message;

  Tensor b_bad("b", OPCERT_DTYPE_F32, {6, 9});
  Outcome shape = session.query(kKey, {&a, &b_bad}, {&c});
  EXPECT_FALSE(shape.supported);
  EXPECT_NE(shape.message.find("b has shape [6, 9], expected [N, K] = [6, 8]"), std::string::npos) << shape.message;

  // The same b read as [K, N] is wrong the other way round.
  Outcome kn = session.query(kKey, {&a, &b}, {&c}, {Attr::text("b_layout", "kn")});
  EXPECT_FALSE(kn.supported);
  EXPECT_NE(kn.message.find("expected [K, N]"), std::string::npos) << kn.message;

  Outcome layout = session.query(kKey, {&a, &b}, {&c}, {Attr::text("b_layout", "nn")});
  EXPECT_FALSE(layout.supported);
  EXPECT_NE(layout.message.find("b_layout"), std::string::npos) << layout.message;

  Outcome missing = session.query(kKey, {&a}, {&c});
  EXPECT_FALSE(missing.supported);
  EXPECT_EQ(missing.message, "missing input 'b'");

  Tensor bias("bias", OPCERT_DTYPE_F32, {5});
  Outcome bias_shape = session.query(kKey, {&a, &b, &bias}, {&c});
  EXPECT_FALSE(bias_shape.supported);
  EXPECT_NE(bias_shape.message.find("bias has shape [5], expected [N] = [6]"), std::string::npos);

  // run_op on a declined case is UNSUPPORTED with the same reason, and writes nothing.
  Outcome run = session.run(kKey, {&a, &b_bad}, {&c});
  EXPECT_EQ(run.code, OPCERT_ERROR_UNSUPPORTED);
  EXPECT_TRUE(c.guards_intact());
}

}  // namespace
}  // namespace opcert::test::cpugemm
