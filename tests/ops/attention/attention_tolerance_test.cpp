// attention's bounds (harness/ops/attention/attention_tolerance.cpp, docs/TOLERANCES.md) term by
// term: the fp16/bf16/fp32 rows as they were, and the fp8 rows of FlashAttention-3's forward
// (p rounded to e4m3, accumulations on fp8 tensor cores, dequantized scores in bf16 at worst).
#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <string>

#include "check/tolerance.h"
#include "ops/op_test_support.h"

namespace opcert {
namespace {

using nlohmann::json;

constexpr double kUa = 0x1.0p-24;      // fp32 accumulation
constexpr double kUfp8 = 0x1.0p-14;    // Hopper's fp8 tensor cores
constexpr double kUbf16 = 0x1.0p-8;
constexpr double kUe4m3 = 0x1.0p-4;
constexpr double kTinyBf16 = 0x1.0p-133;

// B 1, Sq 4, Skv 16, Hq 2, Hkv 1, D 64, with lse.
Case attention_case(const std::string& dtype) {
  return test::build_case("attention", {{"dtype", dtype}, {"sq", 4}, {"skv", 16}, {"hq", 2}, {"hkv", 1}, {"d", 64}, {"lse", true}});
}

ReferenceOutput one_element(const std::string& name, double magnitude, double condition) {
  ReferenceOutput ref;
  ref.name = name;
  ref.values = {0.5};
  ref.magnitude = {magnitude};
  ref.condition = {condition};
  return ref;
}

TEST(AttentionTolerance, Bf16RowsAsDerived) {
  const Case c = attention_case("bf16");
  const ReferenceOutput o_ref = one_element("o", 0.7, 3.0), lse_ref = one_element("lse", 1.0, 5.0);  // the bounds read them
  const OutputTolerance o = output_tolerance(c, o_ref);
  // (2u + 2 s_err + 4 sqrt(Skv) ua) magnitude, s_err = (2 u_bf16 + 2 sqrt(D) ua) condition.
  const double s_err = (2 * kUbf16 + 2 * 8 * kUa) * 3.0;
  EXPECT_DOUBLE_EQ(o.bound(0, 0.5), kTinyBf16 + (2 * kUbf16 + 2 * s_err + 4 * 4 * kUa) * 0.7 + 2 * kUbf16 * 0.5);
  const OutputTolerance lse = output_tolerance(c, lse_ref);
  EXPECT_DOUBLE_EQ(lse.bound(0, 0.5), (2 * kUbf16 + 2 * 8 * kUa) * 5.0 + 4 * kUa * std::log2(17.0) + 4 * kUa * 0.5);
}

TEST(AttentionTolerance, Fp8RowsAsDerived) {
  const Case c = attention_case("e4m3");
  const ReferenceOutput o_ref = one_element("o", 0.7, 3.0), lse_ref = one_element("lse", 1.0, 5.0);  // the bounds read them
  const OutputTolerance o = output_tolerance(c, o_ref);
  EXPECT_EQ(o.dtype, OPCERT_DTYPE_BF16);
  // p held in e4m3 (u8, against the floored magnitude), scores with bf16's rounding and the fp8
  // tensor cores' accumulation over D, p·v accumulated there too; relative: bf16's output rounding.
  const double s_err = (2 * kUbf16 + 2 * 8 * kUfp8) * 3.0;
  EXPECT_DOUBLE_EQ(o.bound(0, 0.5), kTinyBf16 + (kUe4m3 + 2 * s_err + 4 * 4 * kUfp8) * 0.7 + 2 * kUbf16 * 0.5);
  // Only the accumulations may lean; the roundings to nearest (inputs, scores, p) are unbiased.
  EXPECT_DOUBLE_EQ(o.bias_noise(0), kTinyBf16 + (2 * (2 * 8 * kUfp8 * 3.0) + 4 * 4 * kUfp8) * 0.7);
  // lse: the sum of exponentials precedes p's rounding, and stays fp32.
  const OutputTolerance lse = output_tolerance(c, lse_ref);
  EXPECT_DOUBLE_EQ(lse.bound(0, 0.5), (2 * kUbf16 + 2 * 8 * kUfp8) * 5.0 + 4 * kUa * std::log2(17.0) + 4 * kUa * 0.5);
}

TEST(AttentionTolerance, Fp8ScoresAreNotAllowedE4m3sRounding) {
  // The scores' rounding is bf16's (the peer's dequantized q, k), not that of the e4m3 codes: q·k
  // of e4m3 values is exact, and an implementation that rounds scores to e4m3 must fail.
  const Case c = attention_case("e4m3");
  const ReferenceOutput lse_ref = one_element("lse", 1.0, 5.0);
  const OutputTolerance lse = output_tolerance(c, lse_ref);
  EXPECT_LT(lse.bound(0, 0.5), 2 * kUe4m3 * 5.0) << "the scores may not be rounded to e4m3";
}

}  // namespace
}  // namespace opcert
