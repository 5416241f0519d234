// The gemm case builder (harness/ops/gemm/gemm_spec.cpp): suite parameters -> the operands of
// docs/OPS.md#gemm (names, shapes, dtypes), attributes, fills; and a clear std::invalid_argument
// for every bad parameter.
#include "ops/op_test_support.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

namespace opcert {
namespace {

using nlohmann::json;
using test::error_of;
using test::input;
using test::names;
using test::Names;
using test::output;
using test::Shape;

Case build(const std::string& op, const json& params) { return test::build_case(op, params); }

TEST(CaseBuilder, GemmOperandsFollowOpsMd) {
  const auto c = build("gemm", {{"dtype", "bf16"}, {"m", 5}, {"n", 7}, {"k", 9}, {"bias", true}});
  EXPECT_EQ(names(c.inputs), (Names{"a", "b", "bias"}));
  EXPECT_EQ(names(c.outputs), (Names{"c"}));
  EXPECT_EQ(input(c, "a").shape, (Shape{5, 9}));
  EXPECT_EQ(input(c, "b").shape, (Shape{7, 9}));
  EXPECT_EQ(input(c, "bias").shape, (Shape{7}));
  EXPECT_EQ(output(c, "c").shape, (Shape{5, 7}));
  for (const auto& t : c.inputs) EXPECT_EQ(t.dtype, OPCERT_DTYPE_BF16);
  EXPECT_EQ(output(c, "c").dtype, OPCERT_DTYPE_BF16);
  EXPECT_TRUE(c.attrs.empty()) << "b_layout not given, so not sent";
  EXPECT_EQ(c.fill_mode, FillMode::kRandom);
  EXPECT_EQ(input(c, "a").fill.kind, FillSpec::Kind::kRandom);
  EXPECT_EQ(input(c, "a").fill.lo, -1.0);
  EXPECT_EQ(input(c, "a").fill.hi, 1.0);
  EXPECT_EQ(c.sample_elements, 0);
}

TEST(CaseBuilder, GemmKnLayoutTransposesBAndSendsTheAttribute) {
  const auto c = build("gemm", {{"dtype", "fp16"}, {"m", 5}, {"n", 7}, {"k", 9}, {"b_layout", "kn"}});
  EXPECT_EQ(input(c, "b").shape, (Shape{9, 7}));
  EXPECT_EQ(c.find_input("bias"), nullptr);
  ASSERT_TRUE(c.attrs.contains("b_layout"));
  EXPECT_EQ(std::get<std::string>(c.attrs.at("b_layout")), "kn");
  // Given explicitly at its default: still sent.
  const auto nk = build("gemm", {{"dtype", "fp16"}, {"m", 5}, {"n", 7}, {"k", 9}, {"b_layout", "nk"}});
  EXPECT_EQ(std::get<std::string>(nk.attrs.at("b_layout")), "nk");
}

TEST(CaseBuilder, GemmAllowTf32IsSentAsAnIntAndOnlyForFp32) {
  const auto c = build("gemm", {{"dtype", "fp32"}, {"m", 5}, {"n", 7}, {"k", 9}, {"allow_tf32", true}});
  ASSERT_TRUE(c.attrs.contains("allow_tf32"));
  EXPECT_EQ(std::get<int64_t>(c.attrs.at("allow_tf32")), 1);
  EXPECT_EQ(input(c, "a").dtype, OPCERT_DTYPE_F32);
  // Given at its default: still sent, as 0.
  const auto off = build("gemm", {{"dtype", "fp32"}, {"m", 5}, {"n", 7}, {"k", 9}, {"allow_tf32", false}});
  EXPECT_EQ(std::get<int64_t>(off.attrs.at("allow_tf32")), 0);
  EXPECT_EQ(error_of("gemm", {{"dtype", "fp16"}, {"m", 5}, {"n", 7}, {"k", 9}, {"allow_tf32", true}}),
            "parameter 'allow_tf32' needs dtype fp32 (TF32 rounds fp32 inputs), not fp16");
  EXPECT_EQ(error_of("gemm", {{"dtype", "fp32"}, {"m", 5}, {"n", 7}, {"k", 9}, {"allow_tf32", 1}}),
            "parameter 'allow_tf32' must be true or false, not 1");
}

TEST(CaseBuilder, GemmExactFillKeepsSumsRepresentable) {
  // bf16: 8 significant bits, limit 256; mean non-zeros per row of A = (256 - 2) / 10 = 25.4.
  const auto bf16 = build("gemm", {{"dtype", "bf16"}, {"m", 4}, {"n", 4}, {"k", 1000}, {"fill", "exact"}, {"bias", true}});
  EXPECT_EQ(bf16.fill_mode, FillMode::kExact);
  const auto& a = input(bf16, "a").fill;
  EXPECT_EQ(a.kind, FillSpec::Kind::kExact);
  EXPECT_EQ(a.lo, -2.0);
  EXPECT_EQ(a.hi, 2.0);
  EXPECT_NEAR(a.density, 0.0254, 1e-12);
  EXPECT_EQ(input(bf16, "b").fill.density, 1.0);
  EXPECT_EQ(input(bf16, "bias").fill.kind, FillSpec::Kind::kExact);
  // fp16: limit 2048 -> 204.6 / 1000; fp32: 2^24, dense.
  const auto fp16 = build("gemm", {{"dtype", "fp16"}, {"m", 4}, {"n", 4}, {"k", 1000}, {"fill", "exact"}});
  EXPECT_NEAR(input(fp16, "a").fill.density, 0.2046, 1e-12);
  const auto fp32 = build("gemm", {{"dtype", "fp32"}, {"m", 4}, {"n", 4}, {"k", 1000}, {"fill", "exact"}});
  EXPECT_EQ(input(fp32, "a").fill.density, 1.0);
  EXPECT_NE(std::find(bf16.tags.begin(), bf16.tags.end(), "exact"), bf16.tags.end());
}

TEST(CaseBuilder, GemmRoundingFillPutsSumsNearTiesAndRefusesWhatBreaksExactness) {
  // docs/SUITES.md: bf16 at K = 64 gives r = 14 (ceil(sqrt(3 * 2^9 / 8))); fp16 at K = 16: r = 56.
  const auto bf16 = build("gemm", {{"dtype", "bf16"}, {"m", 4}, {"n", 4}, {"k", 64}, {"fill", "rounding"}, {"bias", true}});
  EXPECT_EQ(bf16.fill_mode, FillMode::kRounding);
  for (const char* name : {"a", "b", "bias"}) {
    EXPECT_EQ(input(bf16, name).fill.kind, FillSpec::Kind::kExact) << name;
    EXPECT_EQ(input(bf16, name).fill.hi, 14.0) << name;
    EXPECT_EQ(input(bf16, name).fill.lo, -14.0) << name;
  }
  EXPECT_NE(std::find(bf16.tags.begin(), bf16.tags.end(), "rounding"), bf16.tags.end());
  EXPECT_EQ(input(build("gemm", {{"dtype", "fp16"}, {"m", 4}, {"n", 4}, {"k", 16}, {"fill", "rounding"}}), "a").fill.hi, 56.0);

  const json base = {{"m", 4}, {"n", 4}, {"fill", "rounding"}};
  auto with = [&](json extra) {
    json p = base;
    p.update(extra);
    return error_of("gemm", p);
  };
  EXPECT_NE(with({{"dtype", "bf16"}, {"k", 8}, {"specials", {"nan"}}}).find("cannot go with fill 'rounding'"), std::string::npos);
  EXPECT_NE(with({{"dtype", "fp32"}, {"k", 8}}).find("needs k = 1 and no bias"), std::string::npos);
  EXPECT_NE(with({{"dtype", "fp32"}, {"k", 1}, {"allow_tf32", true}}).find("cannot go with 'allow_tf32'"), std::string::npos);
  EXPECT_EQ(with({{"dtype", "fp32"}, {"k", 1}}), "");  // one product, rounded once
}

}  // namespace
}  // namespace opcert
