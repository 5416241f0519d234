// cpu.gemm_int8.blocked against docs/OPS.md (gemm_int8), through the C ABI: exact int32 sums
// (full int8 range, K = 1000, the extreme -128 * -128 products), dequantized bf16/fp16 outputs
// against the double formula, empty shapes and the query's reasons.
#include <gtest/gtest.h>

#include <cmath>

#include "backends/cpu/gemm_test_support.h"

namespace opcert::test::cpugemm {
namespace {

constexpr const char* kKey = "cpu.gemm_int8.blocked";

int64_t exact_sum(const Tensor& a, const Tensor& b, int64_t i, int64_t j, int64_t k) {
  int64_t s = 0;
  for (int64_t d = 0; d < k; ++d)
    s += static_cast<int64_t>(a.get(i * k + d)) * static_cast<int64_t>(b.get(j * k + d));
  return s;
}

TEST(GemmInt8, Int32OutputIsExactOverTheFullRangeWithKOf1000) {
  Session session;
  const int64_t m = 33, n = 45, k = 1000;
  Tensor a("a", OPCERT_DTYPE_I8, {m, k}), b("b", OPCERT_DTYPE_I8, {n, k}), c("c", OPCERT_DTYPE_I32, {m, n});
  Random rng(101);
  rng.fill_integers(a, -128, 127);
  rng.fill_integers(b, -128, 127);
  ASSERT_EQ(session.run(kKey, {&a, &b}, {&c}).code, OPCERT_ERROR_OK);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) ASSERT_EQ(c.get(i * n + j), static_cast<double>(exact_sum(a, b, i, j, k))) << i << "," << j;
  EXPECT_TRUE(c.guards_intact());
}

TEST(GemmInt8, ExtremeProductsAndKNotAMultipleOfFour) {
  // Every product -128 * -128 = 16384 (the offset trick's worst case), and +127 * -128.
  Session session;
  for (int64_t k : {int64_t{1}, int64_t{3}, int64_t{1023}, int64_t{5001}}) {
    Tensor a("a", OPCERT_DTYPE_I8, {3, k}), b("b", OPCERT_DTYPE_I8, {2, k}), c("c", OPCERT_DTYPE_I32, {3, 2});
    for (int64_t d = 0; d < k; ++d) {
      a.set(d, -128);
      a.set(k + d, 127);
      a.set(2 * k + d, d % 2 ? 1 : -1);
      b.set(d, -128);
      b.set(k + d, 127);
    }
    ASSERT_EQ(session.run(kKey, {&a, &b}, {&c}).code, OPCERT_ERROR_OK);
    EXPECT_EQ(c.get(0), 16384.0 * k);
    EXPECT_EQ(c.get(1), -128.0 * 127 * k);
    EXPECT_EQ(c.get(2), -128.0 * 127 * k);
    EXPECT_EQ(c.get(3), 127.0 * 127 * k);
    EXPECT_EQ(c.get(4), static_cast<double>(exact_sum(a, b, 2, 0, k)));
  }
}

TEST(GemmInt8, DequantizedOutputsMatchTheFormula) {
  Session session;
  const int64_t m = 20, n = 70, k = 301;
  for (int32_t out : {OPCERT_DTYPE_BF16, OPCERT_DTYPE_F16}) {
    for (bool with_bias : {false, true}) {
      Tensor a("a", OPCERT_DTYPE_I8, {m, k}), b("b", OPCERT_DTYPE_I8, {n, k}), c("c", out, {m, n});
      Tensor as("a_scale", OPCERT_DTYPE_F32, {m}), bs("b_scale", OPCERT_DTYPE_F32, {n}), bias("bias", out, {n});
      Random rng(55);
      rng.fill_integers(a, -128, 127);
      rng.fill_integers(b, -128, 127);
      rng.fill(as, 1e-4, 1e-3);
      rng.fill(bs, 1e-4, 1e-3);
      rng.fill(bias, -1, 1);
      std::vector<Tensor*> inputs{&a, &b, &as, &bs};
      if (with_bias) inputs.push_back(&bias);
      ASSERT_EQ(session.run(kKey, inputs, {&c}).code, OPCERT_ERROR_OK);
      for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j) {
          const double acc = static_cast<double>(exact_sum(a, b, i, j, k));
          const double want = as.get(i) * bs.get(j) * acc + (with_bias ? bias.get(j) : 0.0);
          const double mag = std::fabs(as.get(i) * bs.get(j) * acc) + (with_bias ? std::fabs(bias.get(j)) : 0.0);
          // Exact accumulation: only the fp32 scaling (a few roundings) and the output rounding.
          ASSERT_NEAR(c.get(i * n + j), want, gemm_tolerance(out, want, mag, 2)) << i << "," << j;
        }
      EXPECT_TRUE(c.guards_intact());
    }
  }
}

TEST(GemmInt8, EmptyShapesAndKZero) {
  Session session;
  Tensor a("a", OPCERT_DTYPE_I8, {2, 0}), b("b", OPCERT_DTYPE_I8, {3, 0}), c("c", OPCERT_DTYPE_I32, {2, 3});
  for (int64_t e = 0; e < 6; ++e) c.set(e, 99);
  ASSERT_EQ(session.run(kKey, {&a, &b}, {&c}).code, OPCERT_ERROR_OK);
  for (int64_t e = 0; e < 6; ++e) EXPECT_EQ(c.get(e), 0.0);
  Tensor a0("a", OPCERT_DTYPE_I8, {0, 8}), b0("b", OPCERT_DTYPE_I8, {3, 8}), c0("c", OPCERT_DTYPE_I32, {0, 3});
  ASSERT_EQ(session.run(kKey, {&a0, &b0}, {&c0}).code, OPCERT_ERROR_OK);
  EXPECT_TRUE(c0.guards_intact());
}

TEST(GemmInt8, QueryReasons) {
  Session session;
  Tensor a("a", OPCERT_DTYPE_I8, {4, 8}), b("b", OPCERT_DTYPE_I8, {6, 8});
  Tensor c32("c", OPCERT_DTYPE_I32, {4, 6}), cbf("c", OPCERT_DTYPE_BF16, {4, 6});
  Tensor as("a_scale", OPCERT_DTYPE_F32, {4}), bs("b_scale", OPCERT_DTYPE_F32, {6});
  EXPECT_TRUE(session.query(kKey, {&a, &b}, {&c32}).supported);
  EXPECT_TRUE(session.query(kKey, {&a, &b, &as, &bs}, {&cbf}).supported);

  Outcome no_scale = session.query(kKey, {&a, &b, &as}, {&cbf});
  EXPECT_FALSE(no_scale.supported);
  EXPECT_EQ(no_scale.message, "missing input 'b_scale'");

  Tensor bias("bias", OPCERT_DTYPE_I32, {6});
  Outcome int_bias = session.query(kKey, {&a, &b, &bias}, {&c32});
  EXPECT_FALSE(int_bias.supported);
  EXPECT_NE(int_bias.message.find("bias is only defined for dequantized"), std::string::npos) << int_bias.message;

  Tensor bs_bad("b_scale", OPCERT_DTYPE_F32, {4});
  Outcome shape = session.query(kKey, {&a, &b, &as, &bs_bad}, {&cbf});
  EXPECT_FALSE(shape.supported);
  EXPECT_NE(shape.message.find("b_scale has shape [4], expected [N] = [6]"), std::string::npos) << shape.message;

  Tensor c_f32("c", OPCERT_DTYPE_F32, {4, 6});
  Outcome out = session.query(kKey, {&a, &b, &as, &bs}, {&c_f32});
  EXPECT_FALSE(out.supported);
  EXPECT_NE(out.message.find("c must be int32/bf16/fp16 (got fp32)"), std::string::npos) << out.message;
}

}  // namespace
}  // namespace opcert::test::cpugemm
