// The TF32 opt-in of gemm (docs/OPS.md#gemm, docs/TOLERANCES.md "TF32 inputs"): a GEMM computed
// from TF32-rounded inputs passes the bound of a case with allow_tf32 = 1 and fails the same
// case without it, so the widened bound is earned by the opt-in and the fp32 bound still bites;
// allow_tf32 on anything but an fp32 gemm is refused with one clear line.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

#include "check/compare.h"
#include "check/fill.h"
#include "ops/gemm/gemm_tf32.h"
#include "mutants/tf32_rounding.h"  // backends/mutants
#include "ops/op_test_support.h"

namespace opcert {
namespace {

using ops::gemm::allows_tf32;
using ops::gemm::kTf32UnitRoundoff;

using ::testing::HasSubstr;
using nlohmann::json;

constexpr uint64_t kSeed = 2026;

json fp32_gemm(int64_t m, int64_t n, int64_t k) {
  return {{"dtype", "fp32"}, {"m", m}, {"n", n}, {"k", k}, {"bias", true}};
}

// The exact result and magnitude of a gemm case's inputs (fp32 products are exact in fp64), and
// what a TF32 backend returns for them: inputs rounded to TF32, products accumulated in fp32 by
// fused multiply-adds, the bias added in fp32.
struct Tf32Gemm {
  ReferenceOutput exact;
  HostTensor tf32;

  explicit Tf32Gemm(const Case& c) : tf32(*c.find_output("c")) {
    const HostTensor a = generate_input(*c.find_input("a"), kSeed, c.id);
    const HostTensor b = generate_input(*c.find_input("b"), kSeed, c.id);
    const HostTensor bias = generate_input(*c.find_input("bias"), kSeed, c.id);
    const int64_t m = a.spec.shape[0], k = a.spec.shape[1], n = b.spec.shape[0];
    exact.name = "c";
    auto got = tf32.as<float>();
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double sum = bias.value(j), magnitude = std::fabs(bias.value(j));
        float acc = 0.0f;
        for (int64_t p = 0; p < k; ++p) {
          const double x = a.value(i * k + p), y = b.value(j * k + p);
          sum += x * y;
          magnitude += std::fabs(x * y);
          acc = std::fma(static_cast<float>(test::round_to_tf32(x)), static_cast<float>(test::round_to_tf32(y)), acc);
        }
        exact.values.push_back(sum);
        exact.magnitude.push_back(magnitude);
        got[static_cast<std::size_t>(i * n + j)] = acc + static_cast<float>(bias.value(j));
      }
  }
};

TEST(Tf32Tolerance, RoundingTiesAwayFromZeroToTenMantissaBits) {
  EXPECT_EQ(test::round_to_tf32(1024.5), 1025.0);  // a tie: 1024 + 2^-1, the last kept bit is 2^0
  EXPECT_EQ(test::round_to_tf32(-1024.5), -1025.0);
  EXPECT_EQ(test::round_to_tf32(1.0 + 0x1.0p-11), 1.0 + 0x1.0p-10);
  EXPECT_EQ(test::round_to_tf32(1.0 + 0x1.0p-12), 1.0);
  EXPECT_EQ(test::round_to_tf32(0x1.ffffffp0), 2.0);  // carries into the next binade
  EXPECT_TRUE(std::isnan(test::round_to_tf32(NAN)));
  EXPECT_EQ(test::round_to_tf32(INFINITY), INFINITY);
}

TEST(Tf32Tolerance, BoundAddsTheInputRoundingOfTf32) {
  json params = fp32_gemm(1, 4, 64);
  const Case fp32 = test::build_case("gemm", params);
  params["allow_tf32"] = true;
  const Case tf32 = test::build_case("gemm", params);
  EXPECT_EQ(std::get<int64_t>(tf32.attrs.at("allow_tf32")), 1);
  ReferenceOutput ref;
  ref.name = "c";
  ref.values = {1.0, 0, 0, 0};
  ref.magnitude = {10.0, 0, 0, 0};
  const double u_tf = kTf32UnitRoundoff;
  const double fp32_bound = output_tolerance(fp32, ref).bound(0, 1.0);
  // relative 2 * 2^-24; absolute (2 sqrt(64) + 4) * 2^-24 * 10, plus (2 u_tf + u_tf^2) * 10 with TF32.
  EXPECT_NEAR(fp32_bound, 0x1.0p-23 + 20.0 * 0x1.0p-24 * 10.0, 1e-15);
  EXPECT_NEAR(output_tolerance(tf32, ref).bound(0, 1.0), fp32_bound + (2.0 * u_tf + u_tf * u_tf) * 10.0, 1e-15);

  // Exact fills stay exact: their small integers are TF32 values (the final rounding's 2u only).
  params["fill"] = "exact";
  EXPECT_DOUBLE_EQ(output_tolerance(test::build_case("gemm", params), ref).bound(0, 1.0), 0x1.0p-23 + least_subnormal(OPCERT_DTYPE_F32));
}

TEST(Tf32Tolerance, Tf32ResultPassesWithTheOptInAndFailsWithout) {
  for (int64_t k : {16, 100, 1000}) {
    SCOPED_TRACE("K = " + std::to_string(k));
    json params = fp32_gemm(24, 40, k);
    const Case fp32 = test::build_case("gemm", params);
    params["allow_tf32"] = true;
    const Case tf32 = test::build_case("gemm", params);
    ASSERT_EQ(fp32.id, tf32.id);  // the same inputs
    const Tf32Gemm g(tf32);

    const TensorMetrics allowed = compare_output(g.tf32, g.exact, output_tolerance(tf32, g.exact));
    EXPECT_EQ(allowed.mismatches, 0);
    EXPECT_LT(allowed.error_ratio, 0.5) << "a correct TF32 GEMM passes with margin";

    const TensorMetrics refused = compare_output(g.tf32, g.exact, output_tolerance(fp32, g.exact));
    EXPECT_GT(refused.mismatches, 0);
    EXPECT_GT(refused.error_ratio, 4.0) << "without allow_tf32 the fp32 bound rejects TF32 clearly";
    std::string message;
    EXPECT_EQ(judge({refused}, message), Status::kFailed);
  }
}

TEST(Tf32Tolerance, OnlyAnFp32GemmMayAllowTf32) {
  try {
    test::build_case("gemm", {{"dtype", "bf16"}, {"m", 1}, {"n", 1}, {"k", 1}, {"allow_tf32", true}});
    ADD_FAILURE() << "bf16 with allow_tf32 was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "parameter 'allow_tf32' needs dtype fp32 (TF32 rounds fp32 inputs), not bf16");
  }
  // Given false, it is the default and says nothing TF32 could break.
  EXPECT_NO_THROW(test::build_case("gemm", {{"dtype", "fp16"}, {"m", 1}, {"n", 1}, {"k", 1}, {"allow_tf32", false}}));

  // A case made some other way (a repro, a test) is refused by the model the reference and the
  // tolerance share.
  Case bf16 = test::build_case("gemm", {{"dtype", "bf16"}, {"m", 1}, {"n", 4}, {"k", 8}});
  bf16.attrs["allow_tf32"] = int64_t{1};
  EXPECT_THAT([&] { allows_tf32(bf16); },
              ::testing::ThrowsMessage<std::invalid_argument>(HasSubstr("allow_tf32 = 1 needs fp32 operands")));
  ReferenceOutput ref;
  ref.name = "c";
  ref.values = {0, 0, 0, 0};
  EXPECT_THROW(output_tolerance(bf16, ref), std::invalid_argument);

  Case two = test::build_case("gemm", fp32_gemm(1, 4, 8));
  two.attrs["allow_tf32"] = int64_t{2};
  EXPECT_THAT([&] { allows_tf32(two); },
              ::testing::ThrowsMessage<std::invalid_argument>(HasSubstr("allow_tf32 must be 0 or 1, not 2")));
}

}  // namespace
}  // namespace opcert
