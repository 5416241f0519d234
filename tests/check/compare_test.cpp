#include "check/compare.h"
#include "check/rounding_check.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

#include "model/scalar_codec.h"

namespace opcert {
namespace {

using ::testing::HasSubstr;

TensorSpec spec(const std::string& name, opcert_dtype dtype, std::vector<int64_t> shape) {
  TensorSpec s;
  s.name = name;
  s.dtype = dtype;
  s.shape = std::move(shape);
  return s;
}

// A gemm case of the given output dtype and K, for its tolerance.
Case gemm_case(opcert_dtype dtype, int64_t k, FillMode fill = FillMode::kRandom) {
  Case c;
  c.op = "gemm";
  c.id = "gemm.test";
  c.fill_mode = fill;
  c.inputs = {spec("a", dtype, {1, k}), spec("b", dtype, {4, k})};
  c.outputs = {spec("c", dtype, {1, 4})};
  return c;
}

HostTensor tensor_of(const TensorSpec& s, const std::vector<double>& values) {
  HostTensor t(s);
  for (std::size_t i = 0; i < values.size(); ++i)
    store_as(s.dtype, values[i], t.bytes.data() + i * (t.bytes.size() / values.size()));
  return t;
}

ReferenceOutput reference(const std::string& name, std::vector<double> values, std::vector<double> magnitude = {}) {
  ReferenceOutput r;
  r.name = name;
  r.values = std::move(values);
  r.magnitude = std::move(magnitude);
  return r;
}

TEST(Tolerance, GemmBoundIsOutputRoundingPlusAccumulation) {
  const Case c = gemm_case(OPCERT_DTYPE_BF16, 64);
  const ReferenceOutput ref = reference("c", {1.0, 0, 0, 0}, {10.0, 0, 0, 0});
  const OutputTolerance t = output_tolerance(c, ref);
  // relative 2u = 2^-7 for bf16; absolute (2 sqrt(64) + 4) * 2^-24 * magnitude + least subnormal.
  EXPECT_DOUBLE_EQ(t.relative, 0x1.0p-7);
  EXPECT_NEAR(t.bound(0, 1.0), 0x1.0p-7 + 20.0 * 0x1.0p-24 * 10.0, 1e-12);
  EXPECT_NEAR(t.bound(1, 0.0), least_subnormal(OPCERT_DTYPE_BF16), 1e-45);

  const OutputTolerance exact = output_tolerance(gemm_case(OPCERT_DTYPE_BF16, 64, FillMode::kExact), ref);
  EXPECT_DOUBLE_EQ(exact.relative, 0x1.0p-7);  // the final rounding's u|held|, with a margin

  const OutputTolerance overridden = output_tolerance(c, ref, BoundOverride{0.5, 0.0});
  EXPECT_DOUBLE_EQ(overridden.bound(0, 1.0), 0.5);
}

// gemm_int8 with a float output: the int32 sum is exact, so the bound is the fp32 epilogue's four
// roundings (doubled) on |scaled sum| + |bias|, whatever K; at K = 2^17 the elements are decided
// and a sum rounded to bf16 before its scaling fails the rounding check.
TEST(Tolerance, GemmInt8FloatOutputIsBoundedByItsEpilogueNotBySummation) {
  Case c;
  c.op = "gemm_int8";
  c.id = "gemm_int8.test";
  const int64_t k = int64_t{1} << 17;
  c.inputs = {spec("a", OPCERT_DTYPE_I8, {1, k}), spec("b", OPCERT_DTYPE_I8, {1, k}), spec("a_scale", OPCERT_DTYPE_F32, {1}),
              spec("b_scale", OPCERT_DTYPE_F32, {1})};
  c.outputs = {spec("c", OPCERT_DTYPE_BF16, {1, 1})};
  // acc = 2^20 + 4097, scaled by 1.5: 192.75 bf16 spacings (8192), so 193; rounded to bf16 first,
  // acc is 2^20 + 8192 and 1.5 times it a tie, 193.5, which goes to 194.
  const double x = 1.5 * (1048576.0 + 4097.0);
  const ReferenceOutput ref = reference("c", {x}, {x});
  const OutputTolerance t = output_tolerance(c, ref);
  EXPECT_DOUBLE_EQ(t.absolute(0), least_subnormal(OPCERT_DTYPE_BF16) + 8.0 * 0x1.0p-24 * x);
  const TensorMetrics right = compare_output(tensor_of(c.outputs[0], {193.0 * 8192.0}), ref, t);
  EXPECT_EQ(right.mismatches, 0);
  const TensorMetrics twice = compare_output(tensor_of(c.outputs[0], {194.0 * 8192.0}), ref, t);
  EXPECT_EQ(twice.rounding.misrounded, 1);
  EXPECT_EQ(twice.mismatches, 1);
}

// A tie rounded down to a power of two errs by exactly u|held| (the spacing below 32 is half the
// spacing above): the exact-fill bound leaves it a margin, and the rounding check still fails the
// other neighbour of the tie, the wrong bits at the same distance.
TEST(Compare, ExactFillTieAtAPowerOfTwoPassesWithMarginAndItsWrongTwinFails) {
  const Case c = gemm_case(OPCERT_DTYPE_BF16, 1024, FillMode::kExact);
  const ReferenceOutput ref = reference("c", {32.125, 1.0, 2.0, 3.0});
  const OutputTolerance tol = output_tolerance(c, ref);
  const TensorMetrics right = compare_output(tensor_of(c.outputs[0], {32.0, 1.0, 2.0, 3.0}), ref, tol);
  EXPECT_EQ(right.mismatches, 0);
  EXPECT_DOUBLE_EQ(right.error_ratio, 0.5);
  const TensorMetrics wrong = compare_output(tensor_of(c.outputs[0], {32.25, 1.0, 2.0, 3.0}), ref, tol);
  EXPECT_EQ(wrong.mismatches, 1);
  EXPECT_EQ(wrong.rounding.misrounded, 1);
}

// NaN where the reference is finite fails whatever else is NaN: the suites' special-value cases
// keep finite rows beside the NaN ones, and an output NaN everywhere fails on those.
TEST(Compare, NanWhereTheReferenceIsFiniteFailsBesideExpectedNans) {
  const Case c = gemm_case(OPCERT_DTYPE_BF16, 16);
  const ReferenceOutput ref = reference("c", {NAN, NAN, 1.0, 2.0});
  const TensorMetrics m = compare_output(tensor_of(c.outputs[0], {NAN, NAN, NAN, NAN}), ref, output_tolerance(c, ref));
  EXPECT_EQ(m.nan_inf_mismatches, 2);
  std::string message;
  EXPECT_EQ(judge({m}, message), Status::kFailed);
  EXPECT_THAT(message, HasSubstr("2 NaN/Inf mismatches"));
}

TEST(Compare, IdenticalOutputPassesWithPerfectMetrics) {
  const Case c = gemm_case(OPCERT_DTYPE_F32, 16);
  const ReferenceOutput ref = reference("c", {1.5, -2.0, 0.25, 8.0});
  const HostTensor got = tensor_of(c.outputs[0], {1.5, -2.0, 0.25, 8.0});
  const TensorMetrics m = compare_output(got, ref, output_tolerance(c, ref));
  EXPECT_EQ(m.checked, 4);
  EXPECT_EQ(m.mismatches, 0);
  EXPECT_EQ(m.max_abs, 0.0);
  EXPECT_EQ(m.rmse, 0.0);
  EXPECT_DOUBLE_EQ(m.cosine, 1.0);
  EXPECT_EQ(m.max_ulp, 0);
  EXPECT_EQ(m.error_ratio, 0.0);
  std::string message;
  EXPECT_EQ(judge({m}, message), Status::kPassed);
}

TEST(Compare, OneElementOutOfBoundFailsAndIsNamed) {
  const Case c = gemm_case(OPCERT_DTYPE_BF16, 16);
  const ReferenceOutput ref = reference("c", {1.0, 2.0, 3.0, 4.0});
  // bf16 ulp at 4 is 2^-5; 4 + 3 ulps is far outside 2u|4| + accumulation.
  const HostTensor got = tensor_of(c.outputs[0], {1.0, 2.0, 3.0, 4.0 + 3 * 0x1.0p-5});
  const TensorMetrics m = compare_output(got, ref, output_tolerance(c, ref));
  EXPECT_EQ(m.mismatches, 1);
  EXPECT_EQ(m.worst.index, 3);
  EXPECT_DOUBLE_EQ(m.max_abs, 3 * 0x1.0p-5);
  EXPECT_DOUBLE_EQ(m.max_rel, 3 * 0x1.0p-5 / 4.0);
  EXPECT_EQ(m.max_ulp, 3);
  EXPECT_DOUBLE_EQ(m.mean_abs, 3 * 0x1.0p-5 / 4.0);
  EXPECT_DOUBLE_EQ(m.rmse, std::sqrt((3 * 0x1.0p-5) * (3 * 0x1.0p-5) / 4.0));
  EXPECT_GT(m.error_ratio, 1.0);
  std::string message;
  EXPECT_EQ(judge({m}, message), Status::kFailed);
  EXPECT_THAT(message, HasSubstr("c: 1 of 4 elements out of bound (1 of 4 decided elements not rounded to nearest even); worst at [3]"));

  // One ulp off is within 2u|v|, but 4 is exact and the accumulation noise (no magnitude here:
  // the least subnormal) cannot move it across a rounding boundary: the element is decided, and
  // misrounded.
  const HostTensor close = tensor_of(c.outputs[0], {1.0, 2.0, 3.0, 4.0 + 0x1.0p-5});
  const TensorMetrics one_off = compare_output(close, ref, output_tolerance(c, ref));
  EXPECT_EQ(one_off.mismatches, 1);
  EXPECT_EQ(one_off.rounding.misrounded, 1);
  EXPECT_EQ(one_off.rounding.decisive, 4);
  // Where the noise straddles a boundary the element is not decided, and the bound alone judges it.
  const ReferenceOutput noisy = reference("c", {1.0, 2.0, 3.0, 4.0}, {1.0, 2.0, 3.0, 4e5});
  const TensorMetrics undecided = compare_output(close, noisy, output_tolerance(c, noisy));
  EXPECT_EQ(undecided.rounding.decisive, 3);
  EXPECT_EQ(undecided.mismatches, 0);
}

// 2000 values whose bf16 roundings are truncated (toward zero) or rounded to nearest even.
std::pair<ReferenceOutput, HostTensor> rounded_values(const TensorSpec& out, bool truncate) {
  std::vector<double> exact, got;
  for (int i = 0; i < 2000; ++i) {
    const double x = (i % 2 ? -1.0 : 1.0) * (1.0 + 0.37 * std::fmod(i * 0.6180339887, 1.0) + 1e-9 * i);
    exact.push_back(x);
    const double spacing = grid_spacing(OPCERT_DTYPE_BF16, x);
    got.push_back(truncate ? std::copysign(std::floor(std::fabs(x) / spacing) * spacing, x) : round_to(OPCERT_DTYPE_BF16, x));
  }
  TensorSpec s = out;
  s.shape = {static_cast<int64_t>(exact.size())};
  return {reference("c", exact, std::vector<double>(exact.size(), 0.0)), tensor_of(s, got)};
}

TEST(Rounding, TruncationIsBiasedRoundingAndRoundToNearestIsNot) {
  const Case c = gemm_case(OPCERT_DTYPE_BF16, 16);
  for (const bool truncate : {false, true}) {
    const auto [ref, got] = rounded_values(c.outputs[0], truncate);
    const TensorMetrics m = compare_output(got, ref, output_tolerance(c, ref));
    EXPECT_EQ(m.rounding.bias_elements, 2000);
    EXPECT_EQ(m.rounding.bias_direction, truncate ? "magnitude" : m.rounding.bias_direction);
    EXPECT_EQ(m.rounding.biased, truncate) << m.rounding.bias_ulp << " ulp, z " << m.rounding.bias_z;
    std::string message;
    EXPECT_EQ(judge({m}, message), truncate ? Status::kFailed : Status::kPassed);
    if (truncate) {
      EXPECT_THAT(message, HasSubstr("c: biased rounding: mean error -0."));
      EXPECT_THAT(message, HasSubstr("(toward zero)"));
      EXPECT_LT(m.rounding.bias_ulp, -0.4);
      EXPECT_GT(m.rounding.bias_z, 6.0);
    } else {
      EXPECT_LT(std::fabs(m.rounding.bias_ulp), 0.05);
    }
  }
}

// Rows of bf16 values that share one relative error each (a row's deviation held to bf16, as
// torch's CPU layer_norm does), rounded to nearest or truncated.
RoundingMetrics row_shared_errors(int rows, bool truncate, std::size_t group, double every_row = 0.0) {
  constexpr int kRow = 128;
  OutputTolerance t;
  t.dtype = OPCERT_DTYPE_BF16;
  t.absolute = [](std::size_t) { return 1.0; };
  t.noise = [](std::size_t) { return 1e-9; };
  t.bias_group = group;
  RoundingCheck check(t);
  for (int r = 0; r < rows; ++r) {
    const double shared = every_row != 0.0 ? every_row : 0x1.0p-8 * (2.0 * std::fmod(r * 0.7548776662, 1.0) - 1.0);  // in [-u, u)
    for (int i = 0; i < kRow; ++i) {
      const double x = (i % 3 ? 1.0 : -1.0) * (1.0 + std::fmod((r * kRow + i) * 0.6180339887, 1.0));
      const double y = x * (1.0 + shared), spacing = grid_spacing(OPCERT_DTYPE_BF16, y);
      const double got = truncate ? std::copysign(std::floor(std::fabs(y) / spacing) * spacing, y) : round_to(OPCERT_DTYPE_BF16, y);
      check.observe(static_cast<std::size_t>(r * kRow + i), r * kRow + i, got, x, round_to(OPCERT_DTYPE_BF16, x));
    }
  }
  return check.finish();
}

TEST(Rounding, AnErrorARowSharesIsChanceButALeanOfEveryRowIsNot) {
  // A row's shared error leans its elements by up to an ulp; over rows it averages out.
  const RoundingMetrics correct = row_shared_errors(48, false, 128);
  EXPECT_FALSE(correct.biased) << correct.bias_ulp << " ulp, z " << correct.bias_z;
  EXPECT_LT(std::fabs(correct.bias_ulp), 0.15);
  const RoundingMetrics truncated = row_shared_errors(48, true, 128);
  EXPECT_TRUE(truncated.biased) << truncated.bias_ulp << " ulp, z " << truncated.bias_z;
  EXPECT_LT(truncated.bias_ulp, -0.3);
  EXPECT_EQ(truncated.bias_batches, 32);
  // Too few rows to estimate the spread from: no verdict either way.
  const RoundingMetrics few = row_shared_errors(8, true, 128);
  EXPECT_FALSE(few.biased);
  EXPECT_EQ(few.bias_z, 0.0);
  // Four rows whose statistics all erred the same way (+0.8 u): element by element that is a lean
  // of half an ulp, a false alarm; row by row it is four draws of chance, too few to judge.
  const RoundingMetrics by_element = row_shared_errors(4, false, 1, 0.8 * 0x1.0p-8);
  EXPECT_TRUE(by_element.biased) << by_element.bias_ulp << " ulp, z " << by_element.bias_z;
  const RoundingMetrics by_row = row_shared_errors(4, false, 128, 0.8 * 0x1.0p-8);
  EXPECT_FALSE(by_row.biased);
}

TEST(Rounding, TheChanceOfABiasIsStudentsTOverItsBatches) {
  RoundingMetrics r;
  r.bias_direction = "magnitude";
  r.bias_z = 6.0;
  r.bias_batches = 16;  // scipy.stats.t.sf(6, 15) = 1.2163e-05
  EXPECT_NEAR(r.bias_chance(), 1.2163272755519273e-05, 1e-15);
  r.bias_batches = 32;  // t.sf(6, 31) = 6.1355e-07
  EXPECT_NEAR(r.bias_chance(), 6.135480976433502e-07, 1e-17);
  r.bias_z = 0.0;
  EXPECT_DOUBLE_EQ(r.bias_chance(), 0.5);
  r.bias_batches = 0;  // a report before 2.5: the normal tail
  r.bias_z = 6.0;
  EXPECT_NEAR(r.bias_chance(), 9.865876450377e-10, 1e-20);
}

TEST(Rounding, AValueIsDecidedWhereItsNoiseCannotReachARoundingBoundary) {
  // bf16 around 1: spacing 2^-7, boundaries at odd multiples of 2^-8.
  EXPECT_TRUE(rounding_is_decided(OPCERT_DTYPE_BF16, 1.0 + 0x1.0p-9, 0x1.0p-12));
  EXPECT_FALSE(rounding_is_decided(OPCERT_DTYPE_BF16, 1.0 + 0x1.0p-8 - 0x1.0p-12, 0x1.0p-11));
  // On a tie only an exact value (noise 0) is decided: to even.
  EXPECT_FALSE(rounding_is_decided(OPCERT_DTYPE_BF16, 1.0 + 0x1.0p-8, 0x1.0p-30));
  EXPECT_TRUE(rounding_is_decided(OPCERT_DTYPE_BF16, 1.0 + 0x1.0p-8, 0.0));
  EXPECT_EQ(round_to(OPCERT_DTYPE_BF16, 1.0 + 0x1.0p-8), 1.0);
}

TEST(Rounding, APlatformOverrideTurnsTheChecksOff) {
  const Case c = gemm_case(OPCERT_DTYPE_BF16, 16);
  const auto [ref, got] = rounded_values(c.outputs[0], true);
  const TensorMetrics m = compare_output(got, ref, output_tolerance(c, ref, BoundOverride{std::nullopt, 0x1.0p-6}));
  EXPECT_EQ(m.rounding.decisive, 0);
  EXPECT_FALSE(m.rounding.biased);
  EXPECT_EQ(m.mismatches, 0);
}

// A misrounded element's message says what it did, in ulps, instead of a ratio of "2x" beside a
// bound its error is within.
TEST(Rounding, AMisroundedElementIsDescribedInUlpsFromTheCorrectlyRoundedValue) {
  const Case c = gemm_case(OPCERT_DTYPE_BF16, 16);
  // bf16 spacing on [4, 8) is 2^-5: 5 + 0.1 spacing rounds to 5; 5 - 1 spacing is one ulp from
  // it, 1.1 spacings from the exact value, and within the bound 2^-7 |x|.
  const double exact = 5.0 + 0.1 * 0x1.0p-5;
  const ReferenceOutput ref = reference("c", {1.0, 2.0, 3.0, exact});
  const OutputTolerance tol = output_tolerance(c, ref);
  const TensorMetrics m = compare_output(tensor_of(c.outputs[0], {1.0, 2.0, 3.0, 5.0 - 0x1.0p-5}), ref, tol);
  EXPECT_EQ(m.rounding.misrounded, 1);
  EXPECT_EQ(m.rounding.worst_misrounded_ulp, 1);
  EXPECT_NEAR(m.rounding.worst_misrounded_exact_ulp, 1.1, 1e-9);
  EXPECT_EQ(m.error_ratio, 2.0);  // the verdict's ratio is unchanged: 1 + the ulps
  EXPECT_EQ(describe_misrounding(m.rounding),
            "not round-to-nearest-even: 1 ulp from the correctly rounded value, 1.1 ulp from the exact value");
  std::string message;
  EXPECT_EQ(judge({m}, message), Status::kFailed);
  EXPECT_THAT(message, HasSubstr("worst at [3]: got 4.96875 expected 5.003125 (within its bound 0.0391; not "
                                 "round-to-nearest-even: 1 ulp from the correctly rounded value, 1.1 ulp from the exact value)"));
  EXPECT_THAT(message, ::testing::Not(HasSubstr("2x")));

  // Farther from it than its bound, it is not said to be within it.
  const TensorMetrics far = compare_output(tensor_of(c.outputs[0], {1.0, 2.0, 3.0, 5.0 - 0x1.0p-4}), ref, tol);
  EXPECT_EQ(judge({far}, message), Status::kFailed);
  EXPECT_THAT(message, HasSubstr("(bound 0.0391; not round-to-nearest-even: 2 ulp from the correctly rounded value, "
                                 "2.1 ulp from the exact value)"));

  // An element whose ratio to its bound is the worst keeps that ratio.
  const ReferenceOutput undecided = reference("c", {1.0, 2.0, 3.0, exact}, {1.0, 2.0, 3.0, 4e5});
  const TensorMetrics bound_only = compare_output(tensor_of(c.outputs[0], {1.0, 2.0, 3.0, 8.0}), undecided,
                                                  output_tolerance(c, undecided));
  EXPECT_EQ(judge({bound_only}, message), Status::kFailed);
  EXPECT_THAT(message, HasSubstr("x)"));
  EXPECT_THAT(message, ::testing::Not(HasSubstr("round-to-nearest-even")));
}

TEST(Compare, NanAndInfMustMatchTheReference) {
  const Case c = gemm_case(OPCERT_DTYPE_F32, 4);
  const ReferenceOutput ref = reference("c", {NAN, INFINITY, 1.0, -INFINITY});
  const HostTensor good = tensor_of(c.outputs[0], {NAN, INFINITY, 1.0, -INFINITY});
  EXPECT_EQ(compare_output(good, ref, output_tolerance(c, ref)).mismatches, 0);

  const HostTensor bad = tensor_of(c.outputs[0], {0.0, -INFINITY, NAN, -INFINITY});
  const TensorMetrics m = compare_output(bad, ref, output_tolerance(c, ref));
  EXPECT_EQ(m.mismatches, 3);
  EXPECT_EQ(m.nan_inf_mismatches, 3);
}

TEST(Compare, IntegerOutputsMustBeExact) {
  Case c = gemm_case(OPCERT_DTYPE_I8, 4);
  c.op = "gemm_int8";
  c.outputs = {spec("c", OPCERT_DTYPE_I32, {1, 4})};
  const ReferenceOutput ref = reference("c", {100000, -7, 0, 3});
  EXPECT_EQ(compare_output(tensor_of(c.outputs[0], {100000, -7, 0, 3}), ref, output_tolerance(c, ref)).mismatches, 0);
  const TensorMetrics m = compare_output(tensor_of(c.outputs[0], {100001, -7, 0, 3}), ref, output_tolerance(c, ref));
  EXPECT_EQ(m.mismatches, 1);
  EXPECT_EQ(m.max_ulp, 1);
}

TEST(Compare, QuantizedCodeMayBeTheNeighbourOnlyAtARoundingBoundary) {
  Case c;
  c.op = "quantize";
  c.inputs = {spec("x", OPCERT_DTYPE_F32, {1, 3})};
  c.outputs = {spec("q", OPCERT_DTYPE_I8, {1, 3}), spec("scale", OPCERT_DTYPE_F32, {1})};
  // 2.5 + a hair: rounds to 3, but fp32 noise may give 2. 1.2 is nowhere near a boundary.
  const ReferenceOutput ref = reference("q", {2.5 + 1e-9, 1.2, 127.0});
  const OutputTolerance t = output_tolerance(c, ref);
  EXPECT_EQ(compare_output(tensor_of(c.outputs[0], {3, 1, 127}), ref, t).mismatches, 0);
  EXPECT_EQ(compare_output(tensor_of(c.outputs[0], {2, 1, 127}), ref, t).mismatches, 0);
  EXPECT_EQ(compare_output(tensor_of(c.outputs[0], {3, 2, 127}), ref, t).mismatches, 1);
  EXPECT_EQ(compare_output(tensor_of(c.outputs[0], {3, 1, 126}), ref, t).mismatches, 1);
}

TEST(Compare, MostlyZeroReferenceIsMistrusted) {
  Case c = gemm_case(OPCERT_DTYPE_F32, 4);
  c.outputs = {spec("c", OPCERT_DTYPE_F32, {1, 20})};
  std::vector<double> values(20, 0.0);
  values[0] = 1.0;
  const ReferenceOutput ref = reference("c", values);
  const TensorMetrics m = compare_output(tensor_of(c.outputs[0], values), ref, output_tolerance(c, ref));
  std::string message;
  EXPECT_EQ(judge({m}, message), Status::kMistrusted);
  EXPECT_THAT(message, HasSubstr("95% of the expected values are zero"));
  EXPECT_EQ(judge({m}, message, /*zeros_expected=*/true), Status::kPassed);
}

TEST(Compare, SampledReferenceComparesOnlyItsIndices) {
  Case c = gemm_case(OPCERT_DTYPE_F32, 4);
  ReferenceOutput ref = reference("c", {2.0, 4.0});
  ref.indices = {1, 3};
  // Elements 0 and 2 are wrong but not sampled.
  const TensorMetrics m = compare_output(tensor_of(c.outputs[0], {-9, 2.0, -9, 4.0}), ref, output_tolerance(c, ref));
  EXPECT_EQ(m.checked, 2);
  EXPECT_EQ(m.total, 4);
  EXPECT_EQ(m.mismatches, 0);
}

}  // namespace
}  // namespace opcert
