// cpu.rope.rowwise against a naive double-precision rotary embedding (docs/OPS.md "rope").
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "backends/cpu/misc_op_session.h"
#include "backends/declined.h"

namespace opcert::test::cpumisc {
namespace {

constexpr const char* kKey = "cpu.rope.rowwise";

/// cos/sin tables [P, R/2] with the usual inverse-frequency angles.
void fill_tables(Tensor& cos_t, Tensor& sin_t, int64_t p, int64_t half) {
  for (int64_t pos = 0; pos < p; ++pos)
    for (int64_t i = 0; i < half; ++i) {
      const double angle = static_cast<double>(pos) * std::pow(10000.0, -static_cast<double>(i) / half);
      cos_t.set(pos * half + i, std::cos(angle));
      sin_t.set(pos * half + i, std::sin(angle));
    }
}

/// Checks out against rope of in (tokens x heads x d), position of token t = pos[t].
void expect_rope(const Tensor& in, const Tensor& out, const Tensor& cos_t, const Tensor& sin_t,
                 const std::vector<int64_t>& pos, int64_t heads, int64_t d, int64_t r, bool interleaved) {
  const int64_t half = r / 2;
  int bad = 0;
  for (std::size_t t = 0; t < pos.size() && bad < 5; ++t)
    for (int64_t h = 0; h < heads; ++h) {
      const int64_t base = (static_cast<int64_t>(t) * heads + h) * d;
      for (int64_t i = 0; i < half; ++i) {
        const int64_t i1 = interleaved ? base + 2 * i : base + i;
        const int64_t i2 = interleaved ? base + 2 * i + 1 : base + i + half;
        const double c = cos_t.get(pos[t] * half + i), s = sin_t.get(pos[t] * half + i);
        const double x1 = in.get(i1), x2 = in.get(i2);
        const double mag = std::fabs(x1 * c) + std::fabs(x2 * s);
        const double mag2 = std::fabs(x2 * c) + std::fabs(x1 * s);
        if (!close(out.dtype, out.get(i1), x1 * c - x2 * s, mag) && ++bad)
          ADD_FAILURE() << "out1 at " << i1 << ": " << out.get(i1) << " want " << x1 * c - x2 * s;
        if (!close(out.dtype, out.get(i2), x2 * c + x1 * s, mag2) && ++bad)
          ADD_FAILURE() << "out2 at " << i2 << ": " << out.get(i2) << " want " << x2 * c + x1 * s;
      }
      for (int64_t i = r; i < d; ++i)
        if (out.get(base + i) != in.get(base + i) && ++bad) ADD_FAILURE() << "tail element " << base + i << " changed";
    }
  EXPECT_TRUE(out.guards_intact()) << "rope wrote outside '" << out.name << "'";
}

TEST(CpuRope, BshdWithPositionsPartialRotaryBothStyles) {
  Session s;
  const int64_t b = 2, seq = 5, hq = 3, hk = 1, d = 16, r = 8, p = 11;
  for (int32_t dtype : float_dtypes())
    for (bool interleaved : {false, true}) {
      SCOPED_TRACE(std::string(dtype_label(dtype)) + (interleaved ? " interleaved" : " split_half"));
      Random rng(17 + dtype);
      Tensor q("q", dtype, {b, seq, hq, d}), k("k", dtype, {b, seq, hk, d});
      Tensor q_out("q_out", dtype, {b, seq, hq, d}), k_out("k_out", dtype, {b, seq, hk, d});
      Tensor cos_t("cos", OPCERT_DTYPE_F32, {p, r / 2}), sin_t("sin", OPCERT_DTYPE_F32, {p, r / 2});
      Tensor positions("positions", OPCERT_DTYPE_I32, {b, seq});
      rng.fill(q, -2.0, 2.0);
      rng.fill(k, -2.0, 2.0);
      fill_tables(cos_t, sin_t, p, r / 2);
      std::vector<int64_t> pos(b * seq);
      for (int64_t t = 0; t < b * seq; ++t) {
        pos[t] = (t * 7 + 3) % p;
        positions.set(t, static_cast<double>(pos[t]));
      }
      const Outcome out =
          s.run(kKey, {&q, &k, &cos_t, &sin_t, &positions}, {&q_out, &k_out},
                {Attr::text("style", interleaved ? "interleaved" : "split_half"), Attr::integer("rotary_dim", r)});
      ASSERT_EQ(out.code, OPCERT_ERROR_OK) << out.message;
      expect_rope(q, q_out, cos_t, sin_t, pos, hq, d, r, interleaved);
      expect_rope(k, k_out, cos_t, sin_t, pos, hk, d, r, interleaved);
    }
}

TEST(CpuRope, PackedTokensWithoutPositionsUseTheTokenIndex) {
  Session s;
  const int64_t t = 300, h = 4, d = 64, p = 300;
  for (int32_t dtype : float_dtypes()) {
    SCOPED_TRACE(dtype_label(dtype));
    Random rng(23);
    Tensor q("q", dtype, {t, h, d}), q_out("q_out", dtype, {t, h, d});
    Tensor cos_t("cos", OPCERT_DTYPE_F32, {p, d / 2}), sin_t("sin", OPCERT_DTYPE_F32, {p, d / 2});
    rng.fill(q, -1.0, 1.0);
    fill_tables(cos_t, sin_t, p, d / 2);
    ASSERT_EQ(s.run(kKey, {&q, &cos_t, &sin_t}, {&q_out}).code, OPCERT_ERROR_OK);
    std::vector<int64_t> pos(t);
    for (int64_t i = 0; i < t; ++i) pos[i] = i;
    expect_rope(q, q_out, cos_t, sin_t, pos, h, d, d, false);
  }
}

// Given positions are data: one outside the table is an error of run (the query cannot see it).
TEST(CpuRope, PositionsOutsideTheTableAreErrors) {
  Session s;
  Tensor q("q", OPCERT_DTYPE_F32, {3, 1, 4}), q_out("q_out", OPCERT_DTYPE_F32, {3, 1, 4});
  Tensor cos_t("cos", OPCERT_DTYPE_F32, {4, 2}), sin_t("sin", OPCERT_DTYPE_F32, {4, 2});
  Tensor positions("positions", OPCERT_DTYPE_I32, {3});
  for (int64_t bad : {4, -1}) {
    positions.set(0, 0);
    positions.set(1, static_cast<double>(bad));
    positions.set(2, 1);
    EXPECT_TRUE(s.query(kKey, {&q, &cos_t, &sin_t, &positions}, {&q_out}).supported);
    const Outcome out = s.run(kKey, {&q, &cos_t, &sin_t, &positions}, {&q_out});
    EXPECT_EQ(out.code, OPCERT_ERROR_INVALID_ARGUMENT) << "position " << bad;
    EXPECT_EQ(out.message, "positions[1] = " + std::to_string(bad) + " is outside [0, P) = [0, 4)");
  }
  // Without positions they are 0 .. S-1, known from the shapes: the query declines.
  Tensor long_q("q", OPCERT_DTYPE_F32, {5, 1, 4}), long_out("q_out", OPCERT_DTYPE_F32, {5, 1, 4});
  abi::expect_declined(s.query(kKey, {&long_q, &cos_t, &sin_t}, {&long_out}),
                       "cos and sin have 4 rows, expected at least 5 for the implicit positions 0..4 (no input 'positions')");
}

// A call that breaks the contract is declined in the query (SKIPPED) with the SDK parser's reason.
TEST(CpuRope, DeclinesCallsTheContractRefuses) {
  Session s;
  Tensor q("q", OPCERT_DTYPE_BF16, {2, 2, 8}), q_out("q_out", OPCERT_DTYPE_BF16, {2, 2, 8});
  Tensor cos_t("cos", OPCERT_DTYPE_F32, {4, 4}), sin_t("sin", OPCERT_DTYPE_F32, {4, 4});
  Tensor k("k", OPCERT_DTYPE_BF16, {2, 1, 8});
  abi::expect_declined(s.query(kKey, {&q, &cos_t, &sin_t}, {&q_out}, {Attr::integer("rotary_dim", 6)}),
                       "cos has shape [4, 4], expected [P, R/2] with R = 6 = [4, 3]");
  abi::expect_declined(s.query(kKey, {&q, &cos_t, &sin_t}, {&q_out}, {Attr::integer("rotary_dim", 10)}),
                       "attribute 'rotary_dim' must be even and in [0, D] = [0, 8] (got 10)");
  abi::expect_declined(s.query(kKey, {&q, &cos_t, &sin_t}, {&q_out}, {Attr::text("style", "neox")}),
                       "attribute 'style' must be one of \"split_half\", \"interleaved\" (got \"neox\")");
  abi::expect_declined(s.query(kKey, {&q, &k, &cos_t, &sin_t}, {&q_out}), "missing output 'k_out' (required with input 'k')");
  abi::expect_refused_run(s.run(kKey, {&q, &k, &cos_t, &sin_t}, {&q_out}), "missing output 'k_out' (required with input 'k')");
  EXPECT_TRUE(q_out.guards_intact());
  EXPECT_TRUE(s.query(kKey, {&q, &cos_t, &sin_t}, {&q_out}).supported);
}

}  // namespace
}  // namespace opcert::test::cpumisc
