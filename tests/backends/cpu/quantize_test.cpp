// cpu.quantize.rowwise against docs/OPS.md (quantize), through the C ABI: zero rows, rows whose
// amax is exactly representable (so every q is known by hand), half-to-even ties, per-token
// and per-tensor scales for every input and output dtype, and the query's reasons.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "backends/cpu/gemm_test_support.h"

namespace opcert::test::cpugemm {
namespace {

constexpr const char* kKey = "cpu.quantize.rowwise";

double qmax_of(int32_t dtype) {
  return dtype == OPCERT_DTYPE_I8 ? 127.0 : dtype == OPCERT_DTYPE_F8_E4M3FN ? 448.0 : 57344.0;
}

Outcome quantize(Session& s, Tensor& x, Tensor& q, Tensor& scale, const char* granularity) {
  return s.run(kKey, {&x}, {&q, &scale}, {Attr::text("granularity", granularity)});
}

TEST(Quantize, ARowOfZerosHasScaleZeroAndZeroCodes) {
  Session session;
  for (int32_t qt : {OPCERT_DTYPE_I8, OPCERT_DTYPE_F8_E4M3FN, OPCERT_DTYPE_F8_E5M2}) {
    Tensor x("x", OPCERT_DTYPE_F32, {2, 5}), q("q", qt, {2, 5}), scale("scale", OPCERT_DTYPE_F32, {2});
    for (int64_t e = 0; e < 5; ++e) {
      x.set(e, 0.0);
      x.set(5 + e, static_cast<double>(e + 1));
    }
    std::fill(q.data(), q.data() + 10, uint8_t{0x55});
    ASSERT_EQ(quantize(session, x, q, scale, "token").code, OPCERT_ERROR_OK);
    EXPECT_EQ(scale.get(0), 0.0);
    for (int64_t e = 0; e < 5; ++e) EXPECT_EQ(q.bits(e), 0u) << e;
    EXPECT_EQ(scale.get(1), static_cast<double>(5.0f / static_cast<float>(qmax_of(qt))));
    EXPECT_TRUE(q.guards_intact());
    EXPECT_TRUE(scale.guards_intact());
  }
}

TEST(Quantize, Int8RowWhoseAmaxIsQmaxRoundsHalfToEven) {
  // amax = 127 -> scale = 1 exactly, so q = round_half_even(x), clamped to +-127.
  Session session;
  const std::vector<double> row{127, -63.5, 0.5, 1.5, 2.5, -2.5, -0.4, 126.5, -127};
  const std::vector<double> want{127, -64, 0, 2, 2, -2, 0, 126, -127};
  Tensor x("x", OPCERT_DTYPE_F32, {1, 9}), q("q", OPCERT_DTYPE_I8, {1, 9}), scale("scale", OPCERT_DTYPE_F32, {1});
  for (int64_t e = 0; e < 9; ++e) x.set(e, row[e]);
  ASSERT_EQ(quantize(session, x, q, scale, "token").code, OPCERT_ERROR_OK);
  EXPECT_EQ(scale.get(0), 1.0);
  for (int64_t e = 0; e < 9; ++e) EXPECT_EQ(q.get(e), want[e]) << e;
}

TEST(Quantize, Fp8RowsWhoseAmaxIsQmaxKeepRepresentableValues) {
  Session session;
  {
    // e4m3fn: amax 448 -> scale 1; 17 is a tie between 16 and 18 (-> 16), 0.3 rounds to 0.3125.
    const std::vector<double> row{448, -224, 17, 0.3, -448};
    const std::vector<double> want{448, -224, 16, 0.3125, -448};
    Tensor x("x", OPCERT_DTYPE_BF16, {1, 5}), q("q", OPCERT_DTYPE_F8_E4M3FN, {1, 5}), scale("scale", OPCERT_DTYPE_F32, {1});
    for (int64_t e = 0; e < 5; ++e) x.set(e, row[e]);
    ASSERT_EQ(quantize(session, x, q, scale, "token").code, OPCERT_ERROR_OK);
    EXPECT_EQ(scale.get(0), 1.0);
    for (int64_t e = 0; e < 5; ++e) EXPECT_EQ(q.get(e), want[e]) << e;
  }
  {
    // e5m2: amax 57344 * 2 -> scale 2; -9 / 2 = -4.5 is a tie between -4 and -5 (-> -4, even).
    const std::vector<double> row{114688, -9, 3, 0};
    const std::vector<double> want{57344, -4, 1.5, 0};
    Tensor x("x", OPCERT_DTYPE_F32, {1, 4}), q("q", OPCERT_DTYPE_F8_E5M2, {1, 4}), scale("scale", OPCERT_DTYPE_F32, {1});
    for (int64_t e = 0; e < 4; ++e) x.set(e, row[e]);
    ASSERT_EQ(quantize(session, x, q, scale, "token").code, OPCERT_ERROR_OK);
    EXPECT_EQ(scale.get(0), 2.0);
    for (int64_t e = 0; e < 4; ++e) EXPECT_EQ(q.get(e), want[e]) << e;
  }
}

// Checks q and scale of a random case against the contract computed here in fp32.
void expect_matches_formula(const Tensor& x, const Tensor& q, const Tensor& scale, bool per_tensor) {
  const int64_t m = x.shape[0], k = x.shape[1];
  const auto qmax = static_cast<float>(qmax_of(q.dtype));
  float tensor_amax = 0.0f;
  for (int64_t e = 0; e < m * k; ++e) tensor_amax = std::max(tensor_amax, std::fabs(static_cast<float>(x.get(e))));
  for (int64_t r = 0; r < m; ++r) {
    float amax = 0.0f;
    for (int64_t e = 0; e < k; ++e) amax = std::max(amax, std::fabs(static_cast<float>(x.get(r * k + e))));
    if (per_tensor) amax = tensor_amax;
    const float s = amax == 0.0f ? 0.0f : amax / qmax;
    ASSERT_EQ(scale.get(per_tensor ? 0 : r), static_cast<double>(s)) << "row " << r;
    Tensor expected("q", q.dtype, {k});
    for (int64_t e = 0; e < k; ++e) {
      const float v = s == 0.0f ? 0.0f : std::clamp(static_cast<float>(x.get(r * k + e)) / s, -qmax, qmax);
      expected.set(e, q.dtype == OPCERT_DTYPE_I8 ? std::nearbyint(v) : v);
    }
    for (int64_t e = 0; e < k; ++e) ASSERT_EQ(q.bits(r * k + e), expected.bits(e)) << "row " << r << " col " << e;
  }
}

TEST(Quantize, RandomRowsPerTokenAndPerTensorForEveryDtypePair) {
  Session session;
  for (int32_t xt : {OPCERT_DTYPE_F32, OPCERT_DTYPE_F16, OPCERT_DTYPE_BF16}) {
    for (int32_t qt : {OPCERT_DTYPE_I8, OPCERT_DTYPE_F8_E4M3FN, OPCERT_DTYPE_F8_E5M2}) {
      for (bool per_tensor : {false, true}) {
        const int64_t m = 67, k = 1100;  // enough elements for the threaded path
        Tensor x("x", xt, {m, k}), q("q", qt, {m, k}), scale("scale", OPCERT_DTYPE_F32, {per_tensor ? 1 : m});
        Random rng(static_cast<uint64_t>(xt * 10 + qt));
        for (int64_t r = 0; r < m; ++r) {
          const double range = std::ldexp(1.0, static_cast<int>(r % 9) - 4);  // rows of different magnitudes
          for (int64_t e = 0; e < k; ++e) x.set(r * k + e, rng.uniform(-range, range));
        }
        ASSERT_EQ(quantize(session, x, q, scale, per_tensor ? "tensor" : "token").code, OPCERT_ERROR_OK);
        expect_matches_formula(x, q, scale, per_tensor);
        EXPECT_TRUE(q.guards_intact());
        EXPECT_TRUE(scale.guards_intact());
      }
    }
  }
}

TEST(Quantize, EmptyTensors) {
  Session session;
  Tensor x("x", OPCERT_DTYPE_F32, {0, 4}), q("q", OPCERT_DTYPE_I8, {0, 4}), scale("scale", OPCERT_DTYPE_F32, {1});
  ASSERT_EQ(quantize(session, x, q, scale, "tensor").code, OPCERT_ERROR_OK);
  EXPECT_EQ(scale.get(0), 0.0);
  Tensor x2("x", OPCERT_DTYPE_F32, {3, 0}), q2("q", OPCERT_DTYPE_I8, {3, 0}), s2("scale", OPCERT_DTYPE_F32, {3});
  ASSERT_EQ(quantize(session, x2, q2, s2, "token").code, OPCERT_ERROR_OK);
  for (int64_t r = 0; r < 3; ++r) EXPECT_EQ(s2.get(r), 0.0);
}

TEST(Quantize, QueryReasons) {
  Session session;
  Tensor x("x", OPCERT_DTYPE_F32, {4, 8}), q("q", OPCERT_DTYPE_I8, {4, 8});
  Tensor s_tok("scale", OPCERT_DTYPE_F32, {4}), s_ten("scale", OPCERT_DTYPE_F32, {1});
  EXPECT_TRUE(session.query(kKey, {&x}, {&q, &s_tok}).supported);
  EXPECT_TRUE(session.query(kKey, {&x}, {&q, &s_ten}, {Attr::text("granularity", "tensor")}).supported);

  Outcome tensor_shape = session.query(kKey, {&x}, {&q, &s_tok}, {Attr::text("granularity", "tensor")});
  EXPECT_FALSE(tensor_shape.supported);
  EXPECT_NE(tensor_shape.message.find("scale has shape [4], expected [1]"), std::string::npos) << tensor_shape.message;

  Tensor q32("q", OPCERT_DTYPE_I32, {4, 8});
  Outcome out = session.query(kKey, {&x}, {&q32, &s_tok});
  EXPECT_FALSE(out.supported);
  EXPECT_NE(out.message.find("q must be int8/fp8_e4m3fn/fp8_e5m2 (got int32)"), std::string::npos) << out.message;

  Tensor q_bad("q", OPCERT_DTYPE_I8, {4, 7});
  Outcome shape = session.query(kKey, {&x}, {&q_bad, &s_tok});
  EXPECT_FALSE(shape.supported);
  EXPECT_NE(shape.message.find("q has shape [4, 7], expected [M, K] = [4, 8]"), std::string::npos) << shape.message;

  Outcome missing = session.query(kKey, {&x}, {&q});
  EXPECT_FALSE(missing.supported);
  EXPECT_EQ(missing.message, "missing output 'scale'");
}

}  // namespace
}  // namespace opcert::test::cpugemm
