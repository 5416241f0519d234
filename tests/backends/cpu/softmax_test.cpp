// cpu.softmax.rowwise against a naive double-precision softmax (docs/OPS.md "softmax").
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "backends/cpu/misc_op_session.h"
#include "backends/declined.h"

namespace opcert::test::cpumisc {
namespace {

constexpr const char* kKey = "cpu.softmax.rowwise";
const double kInf = std::numeric_limits<double>::infinity();
const double kNaN = std::numeric_limits<double>::quiet_NaN();

/// Softmax of each row of n values in double, with torch's NaN rules.
std::vector<double> reference_softmax(const std::vector<double>& x, int64_t n) {
  std::vector<double> y(x.size());
  for (std::size_t r = 0; r * n < x.size(); ++r) {
    const double* in = x.data() + r * n;
    double m = -kInf;
    bool nan = false;
    for (int64_t i = 0; i < n; ++i) {
      nan = nan || std::isnan(in[i]);
      m = std::max(m, in[i]);
    }
    double sum = 0.0;
    for (int64_t i = 0; i < n; ++i) sum += std::exp(in[i] - m);
    for (int64_t i = 0; i < n; ++i) y[r * n + i] = (nan || std::isinf(m)) ? kNaN : std::exp(in[i] - m) / sum;
  }
  return y;
}

void expect_softmax(Session& s, Tensor& x, int32_t dtype) {
  Tensor y("y", dtype, x.shape);
  const Outcome out = s.run(kKey, {&x}, {&y});
  ASSERT_EQ(out.code, OPCERT_ERROR_OK) << out.message;
  const int64_t n = x.shape.back();
  const std::vector<double> want = reference_softmax(x.values(), n);
  int bad = 0;
  for (int64_t i = 0; i < y.numel() && bad < 5; ++i)
    if (!close(dtype, y.get(i), want[i], want[i], 1.0, 4e-6)) {
      ++bad;
      ADD_FAILURE() << dtype_label(dtype) << " element " << i << ": got " << y.get(i) << ", want " << want[i];
    }
  EXPECT_TRUE(y.guards_intact()) << "softmax wrote outside its output";
}

TEST(CpuSoftmax, MatchesDoubleReferenceForEveryDtype) {
  Session s;
  for (int32_t dtype : float_dtypes()) {
    Random rng(11 + dtype);
    Tensor x("x", dtype, {3, 5, 37});
    rng.fill(x, -6.0, 6.0);
    expect_softmax(s, x, dtype);
  }
}

TEST(CpuSoftmax, LongRowsAndManyRowsRunInParallel) {
  Session s;
  for (int32_t dtype : float_dtypes()) {
    Random rng(5);
    Tensor x("x", dtype, {6, 16384});
    rng.fill(x, -20.0, 20.0);
    expect_softmax(s, x, dtype);
    Tensor small("x", dtype, {4096, 17});
    rng.fill(small, -3.0, 3.0);
    expect_softmax(s, small, dtype);
  }
}

TEST(CpuSoftmax, RankOneAndSingleElementRows) {
  Session s;
  Tensor x("x", OPCERT_DTYPE_F32, {9});
  Random(3).fill(x, -1.0, 1.0);
  expect_softmax(s, x, OPCERT_DTYPE_F32);
  Tensor one("x", OPCERT_DTYPE_BF16, {4, 1});
  Random(4).fill(one, -100.0, 100.0);
  Tensor y("y", OPCERT_DTYPE_BF16, {4, 1});
  ASSERT_EQ(s.run(kKey, {&one}, {&y}).code, OPCERT_ERROR_OK);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(y.get(i), 1.0);
}

TEST(CpuSoftmax, NanInfAndAllMinusInfRowsFollowTorch) {
  Session s;
  for (int32_t dtype : float_dtypes()) {
    Tensor x("x", dtype, {6, 4});
    const double rows[6][4] = {{1.0, 2.0, 3.0, 4.0},        {1.0, kNaN, 3.0, 4.0},  {1.0, kInf, 3.0, 4.0},
                               {-kInf, -kInf, -kInf, -kInf}, {-kInf, 0.0, -kInf, 0.0}, {-kInf, 2.0, kNaN, -kInf}};
    for (int r = 0; r < 6; ++r)
      for (int i = 0; i < 4; ++i) x.set(r * 4 + i, rows[r][i]);
    Tensor y("y", dtype, {6, 4});
    ASSERT_EQ(s.run(kKey, {&x}, {&y}).code, OPCERT_ERROR_OK);
    for (int i = 0; i < 4; ++i) {
      EXPECT_TRUE(std::isnan(y.get(4 + i))) << "NaN row, element " << i;
      EXPECT_TRUE(std::isnan(y.get(8 + i))) << "+inf row, element " << i;
      EXPECT_TRUE(std::isnan(y.get(12 + i))) << "all -inf row, element " << i;
      EXPECT_TRUE(std::isnan(y.get(20 + i))) << "-inf and NaN row, element " << i;
    }
    const double e[4] = {std::exp(-3.0), std::exp(-2.0), std::exp(-1.0), 1.0};
    const double sum = e[0] + e[1] + e[2] + e[3];
    for (int i = 0; i < 4; ++i) EXPECT_TRUE(close(dtype, y.get(i), e[i] / sum, e[i] / sum)) << y.get(i);
    EXPECT_EQ(y.get(16), 0.0);
    EXPECT_EQ(y.get(17), 0.5);
    EXPECT_EQ(y.get(18), 0.0);
    EXPECT_EQ(y.get(19), 0.5);
  }
}

TEST(CpuSoftmax, LargeValuesDoNotOverflow) {
  Session s;
  Tensor x("x", OPCERT_DTYPE_F32, {1, 3});
  x.set(0, 1000.0);
  x.set(1, 999.0);
  x.set(2, -1000.0);
  expect_softmax(s, x, OPCERT_DTYPE_F32);
}

// A call that breaks the contract is declined in the query (SKIPPED) with the SDK parser's reason.
TEST(CpuSoftmax, DeclinesCallsTheContractRefuses) {
  Session s;
  Tensor x("x", OPCERT_DTYPE_F32, {2, 3});
  Tensor wrong("y", OPCERT_DTYPE_F32, {3, 2});
  abi::expect_declined(s.query(kKey, {&x}, {&wrong}), "y has shape [3, 2], expected the shape of x = [2, 3]");
  abi::expect_refused_run(s.run(kKey, {&x}, {&wrong}), "y has shape [3, 2], expected the shape of x = [2, 3]");
  EXPECT_TRUE(wrong.guards_intact());
  Tensor wrong_dtype("y", OPCERT_DTYPE_F16, {2, 3});
  abi::expect_declined(s.query(kKey, {&x}, {&wrong_dtype}), "y is fp16, expected fp32 (the dtype of x)");
  Tensor scalar("x", OPCERT_DTYPE_F32, {});
  Tensor scalar_y("y", OPCERT_DTYPE_F32, {});
  abi::expect_declined(s.query(kKey, {&scalar}, {&scalar_y}), "x must have rank >= 1 [..., N] (got a 0-D scalar)");
  Tensor xi("x", OPCERT_DTYPE_I32, {2, 3});
  Tensor yi("y", OPCERT_DTYPE_I32, {2, 3});
  abi::expect_declined(s.query(kKey, {&xi}, {&yi}), "x must be fp32/fp16/bf16 (got int32)");
  Tensor y("y", OPCERT_DTYPE_F32, {2, 3});
  EXPECT_TRUE(s.query(kKey, {&x}, {&y}).supported);
}

}  // namespace
}  // namespace opcert::test::cpumisc
