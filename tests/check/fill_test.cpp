#include "check/fill.h"

#include <gtest/gtest.h>
#include <omp.h>

#include <cmath>
#include <limits>
#include <vector>

#include "check/philox.h"
#include "model/dtype.h"
#include "model/scalar_codec.h"

namespace opcert {
namespace {

TensorSpec spec(const std::string& name, opcert_dtype dtype, std::vector<int64_t> shape, FillSpec fill) {
  TensorSpec s;
  s.name = name;
  s.dtype = dtype;
  s.shape = std::move(shape);
  s.fill = std::move(fill);
  return s;
}

TEST(Fill, RandomValuesAreInRangeAndAlreadyRoundedToTheDtype) {
  FillSpec f;
  f.lo = -2.0;
  f.hi = 3.0;
  const HostTensor t = generate_input(spec("a", OPCERT_DTYPE_BF16, {64, 33}, f), 1, "c");
  ASSERT_EQ(t.bytes.size(), 64u * 33u * 2u);
  for (double v : t.values()) {
    EXPECT_GE(v, -2.0);
    EXPECT_LE(v, 3.0);
    EXPECT_EQ(v, round_to(OPCERT_DTYPE_BF16, v));
  }
}

// The random fill draws its uniforms a block at a time (eight lanes at once where the CPU has AVX2):
// every element is still lo + (hi - lo) * uniform(i) rounded into the dtype, specials in place,
// including a last block that is not whole.
TEST(Fill, RandomElementsAreTheDrawsOfTheirOwnIndex) {
  FillSpec f;
  f.lo = -1.5;
  f.hi = 2.25;
  f.specials = {std::numeric_limits<double>::infinity(), -0.0};
  f.special_every = 997;
  for (const opcert_dtype dtype : {OPCERT_DTYPE_F32, OPCERT_DTYPE_F16, OPCERT_DTYPE_BF16, OPCERT_DTYPE_F8_E4M3FN}) {
    const TensorSpec s = spec("x", dtype, {3, 70001}, f);  // 210003 elements: parallel, a partial last block
    const HostTensor t = generate_input(s, 77, "case.id");
    const CounterRng rng(77, "case.id", "x");
    const std::vector<double> got = t.values();
    int64_t differing = 0;
    for (int64_t i = 0; i < s.numel(); ++i) {
      double v = f.lo + (f.hi - f.lo) * rng.uniform(static_cast<uint64_t>(i));
      if (i % f.special_every == f.special_every - 1) v = f.specials[static_cast<std::size_t>(i / f.special_every) % 2];
      const double expected = round_to(dtype, v);
      const bool same = std::isnan(expected) ? std::isnan(got[static_cast<std::size_t>(i)])
                                             : std::signbit(expected) == std::signbit(got[static_cast<std::size_t>(i)]) &&
                                                   expected == got[static_cast<std::size_t>(i)];
      differing += same ? 0 : 1;
    }
    EXPECT_EQ(differing, 0) << dtype_name(dtype);
  }
}

TEST(Fill, SameBytesForAnyThreadCount) {
  FillSpec f;
  const TensorSpec s = spec("a", OPCERT_DTYPE_F16, {1 << 18}, f);  // large enough to go parallel
  omp_set_num_threads(1);
  const HostTensor one = generate_input(s, 9, "case");
  omp_set_num_threads(2);
  const HostTensor two = generate_input(s, 9, "case");
  EXPECT_EQ(one.bytes, two.bytes);
  EXPECT_NE(one.bytes, generate_input(s, 10, "case").bytes);
}

TEST(Fill, ExactFillGivesIntegersWithTheAskedDensity) {
  FillSpec f;
  f.kind = FillSpec::Kind::kExact;
  f.lo = -3;
  f.hi = 3;
  f.density = 0.25;
  const HostTensor t = generate_input(spec("b", OPCERT_DTYPE_F32, {20000}, f), 3, "exact");
  int nonzero = 0;
  for (double v : t.values()) {
    EXPECT_EQ(v, std::floor(v));
    EXPECT_LE(std::fabs(v), 3.0);
    nonzero += v != 0.0;
  }
  // Non-zero needs the density draw and a non-zero integer (6 of 7): about 0.25 * 6/7.
  EXPECT_NEAR(nonzero / 20000.0, 0.25 * 6.0 / 7.0, 0.02);
}

TEST(Fill, ValuesAndSpecialsArePlacedExactly) {
  FillSpec f;
  f.kind = FillSpec::Kind::kValues;
  f.values = {0, 3, 3, 7, 10};
  const HostTensor cu = generate_input(spec("cu_seqlens_q", OPCERT_DTYPE_I32, {5}, f), 1, "v");
  EXPECT_EQ(cu.values(), (std::vector<double>{0, 3, 3, 7, 10}));

  FillSpec s;
  s.special_every = 4;
  s.specials = {NAN, INFINITY, -INFINITY};
  const HostTensor x = generate_input(spec("x", OPCERT_DTYPE_F32, {12}, s), 1, "nan");
  EXPECT_TRUE(std::isnan(x.value(3)));
  EXPECT_EQ(x.value(7), INFINITY);
  EXPECT_EQ(x.value(11), -INFINITY);
  EXPECT_TRUE(std::isfinite(x.value(0)));

  s.special_span = 8;  // the first two rows of a [3, 4] tensor: the last row stays finite
  const HostTensor rows = generate_input(spec("x", OPCERT_DTYPE_F32, {3, 4}, s), 1, "nan");
  EXPECT_TRUE(std::isnan(rows.value(3)));
  EXPECT_EQ(rows.value(7), INFINITY);
  EXPECT_TRUE(std::isfinite(rows.value(11)));

  f.values = {1, 2};
  EXPECT_THROW(generate_input(spec("p", OPCERT_DTYPE_I32, {3}, f), 1, "bad"), std::invalid_argument);
}

TEST(Fill, RopeTablesFollowTheAngleFormula) {
  FillSpec c;
  c.kind = FillSpec::Kind::kRopeCos;
  c.base = 10000.0;
  FillSpec s = c;
  s.kind = FillSpec::Kind::kRopeSin;
  const HostTensor cos = generate_input(spec("cos", OPCERT_DTYPE_F32, {8, 4}, c), 1, "rope");
  const HostTensor sin = generate_input(spec("sin", OPCERT_DTYPE_F32, {8, 4}, s), 1, "rope");
  // Row p = 5, column i = 2 of a rotary dim R = 8: angle 5 * 10000^(-2*2/8) = 5 / 100.
  EXPECT_FLOAT_EQ(cos.value(5 * 4 + 2), std::cos(0.05));
  EXPECT_FLOAT_EQ(sin.value(5 * 4 + 2), std::sin(0.05));
  EXPECT_FLOAT_EQ(cos.value(0), 1.0f);
}

}  // namespace
}  // namespace opcert
