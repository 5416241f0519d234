// The attention case builder (harness/ops/attention/attention_spec.cpp): suite parameters -> the
// operands of docs/OPS.md#attention (names, shapes, dtypes), attributes, fills; and a clear
// std::invalid_argument for every bad parameter.
#include "ops/op_test_support.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

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

TEST(CaseBuilder, AttentionBshd) {
  const auto c = build("attention", {{"dtype", "fp16"}, {"b", 2}, {"sq", 3}, {"skv", 5}, {"hq", 8}, {"hkv", 2}, {"d", 64},
                                     {"causal", true}, {"lse", true}});
  EXPECT_EQ(names(c.inputs), (Names{"q", "k", "v"}));
  EXPECT_EQ(input(c, "q").shape, (Shape{2, 3, 8, 64}));
  EXPECT_EQ(input(c, "k").shape, (Shape{2, 5, 2, 64}));
  EXPECT_EQ(input(c, "v").shape, (Shape{2, 5, 2, 64}));
  EXPECT_EQ(output(c, "o").shape, (Shape{2, 3, 8, 64}));
  EXPECT_EQ(output(c, "o").dtype, OPCERT_DTYPE_F16);
  EXPECT_EQ(output(c, "lse").shape, (Shape{2, 8, 3}));
  EXPECT_EQ(output(c, "lse").dtype, OPCERT_DTYPE_F32);
  EXPECT_EQ(std::get<int64_t>(c.attrs.at("causal")), 1);
  EXPECT_FALSE(c.attrs.contains("scale"));
  EXPECT_FALSE(c.attrs.contains("window_left"));
  // Defaults: hkv = hq, skv = sq, b = 1; no lse output.
  const auto d = build("attention", {{"dtype", "bf16"}, {"sq", 4}, {"hq", 2}, {"d", 32}, {"scale", 0.25}, {"window_left", 3}});
  EXPECT_EQ(input(d, "k").shape, (Shape{1, 4, 2, 32}));
  EXPECT_EQ(d.find_output("lse"), nullptr);
  EXPECT_EQ(std::get<double>(d.attrs.at("scale")), 0.25);
  EXPECT_EQ(std::get<int64_t>(d.attrs.at("window_left")), 3);
}

TEST(CaseBuilder, AttentionVarlenCuSeqlens) {
  const auto c = build("attention", {{"dtype", "bf16"}, {"layout", "varlen"}, {"seqlens_q", {3, 0, 5}},
                                     {"seqlens_k", {4, 2, 0}}, {"hq", 4}, {"hkv", 1}, {"d", 64}, {"lse", true}});
  EXPECT_EQ(names(c.inputs), (Names{"q", "k", "v", "cu_seqlens_q", "cu_seqlens_k"}));
  EXPECT_EQ(input(c, "q").shape, (Shape{8, 4, 64}));
  EXPECT_EQ(input(c, "k").shape, (Shape{6, 1, 64}));
  const auto& cu_q = input(c, "cu_seqlens_q");
  EXPECT_EQ(cu_q.dtype, OPCERT_DTYPE_I32);
  EXPECT_EQ(cu_q.shape, (Shape{4}));
  EXPECT_EQ(cu_q.fill.kind, FillSpec::Kind::kValues);
  EXPECT_EQ(cu_q.fill.values, (std::vector<double>{0, 3, 3, 8}));
  EXPECT_EQ(input(c, "cu_seqlens_k").fill.values, (std::vector<double>{0, 4, 6, 6}));
  EXPECT_EQ(output(c, "o").shape, (Shape{8, 4, 64}));
  EXPECT_EQ(output(c, "lse").shape, (Shape{4, 8}));
  // seqlens_k defaults to seqlens_q.
  const auto same = build("attention", {{"dtype", "bf16"}, {"layout", "varlen"}, {"seqlens_q", {2, 7}}, {"hq", 2}, {"d", 64}});
  EXPECT_EQ(input(same, "cu_seqlens_k").fill.values, (std::vector<double>{0, 2, 9}));
}

TEST(CaseBuilder, AttentionFp8WithDescales) {
  const auto c = build("attention", {{"dtype", "e4m3"}, {"b", 2}, {"sq", 3}, {"hq", 8}, {"hkv", 2}, {"d", 64}, {"descale", true}});
  EXPECT_EQ(names(c.inputs), (Names{"q", "k", "v", "q_descale", "k_descale", "v_descale"}));
  EXPECT_EQ(input(c, "q").dtype, OPCERT_DTYPE_F8_E4M3FN);
  EXPECT_EQ(input(c, "v").dtype, OPCERT_DTYPE_F8_E4M3FN);
  for (const char* name : {"q_descale", "k_descale", "v_descale"}) {
    const TensorSpec& d = input(c, name);
    EXPECT_EQ(d.dtype, OPCERT_DTYPE_F32) << name;
    EXPECT_EQ(d.shape, (Shape{2, 2})) << name << ": [B, Hkv]";
    // amax / 448 for an amax in [0.5, 2]: the codes below span e4m3's range.
    EXPECT_EQ(d.fill.kind, FillSpec::Kind::kRandom) << name;
    EXPECT_DOUBLE_EQ(d.fill.lo, 0.5 / 448) << name;
    EXPECT_DOUBLE_EQ(d.fill.hi, 2.0 / 448) << name;
  }
  EXPECT_DOUBLE_EQ(input(c, "k").fill.lo, -448);
  EXPECT_DOUBLE_EQ(input(c, "k").fill.hi, 448);
  EXPECT_EQ(output(c, "o").dtype, OPCERT_DTYPE_BF16) << "fp8 attention writes bf16";
  EXPECT_EQ(c.dtype, "e4m3->bf16");

  // Without descales the codes are the values: uniform [-1, 1], as the other dtypes'.
  const auto plain = build("attention", {{"dtype", "fp8_e4m3fn"}, {"layout", "varlen"}, {"seqlens_q", {3, 0, 5}}, {"hq", 4},
                                         {"hkv", 1}, {"d", 64}, {"lse", true}});
  EXPECT_EQ(names(plain.inputs), (Names{"q", "k", "v", "cu_seqlens_q", "cu_seqlens_k"}));
  EXPECT_DOUBLE_EQ(input(plain, "q").fill.hi, 1.0);
  EXPECT_EQ(output(plain, "o").dtype, OPCERT_DTYPE_BF16);
  EXPECT_EQ(output(plain, "lse").dtype, OPCERT_DTYPE_F32);
  // Varlen descales are [sequences, Hkv].
  const auto packed = build("attention", {{"dtype", "e4m3"}, {"layout", "varlen"}, {"seqlens_q", {3, 0, 5}}, {"hq", 4},
                                          {"hkv", 1}, {"d", 64}, {"descale", true}});
  EXPECT_EQ(input(packed, "v_descale").shape, (Shape{3, 1}));
}

TEST(CaseBuilder, AttentionFp8ZeroDescalesZeroEveryOtherKGroup) {
  const auto c = build("attention", {{"dtype", "e4m3"}, {"b", 2}, {"sq", 3}, {"hq", 4}, {"hkv", 2}, {"d", 64},
                                     {"descale", true}, {"zero_descale", true}});
  // k's factors [B, Hkv] row-major: groups (0,0) and (1,0) hold an all-zero block's 0.
  const TensorSpec& k = input(c, "k_descale");
  EXPECT_EQ(k.fill.kind, FillSpec::Kind::kValues);
  EXPECT_EQ(k.fill.values, (std::vector<double>{0.0, 1.0 / 448, 0.0, 1.0 / 448}));
  // q's and v's stay positive.
  EXPECT_EQ(input(c, "q_descale").fill.kind, FillSpec::Kind::kRandom);
  EXPECT_DOUBLE_EQ(input(c, "v_descale").fill.lo, 0.5 / 448);
  EXPECT_EQ(error_of("attention", {{"dtype", "e4m3"}, {"sq", 4}, {"hq", 2}, {"d", 64}, {"zero_descale", true}}),
            "parameter 'zero_descale' needs 'descale': true (it zeroes some of k's descales)");
}

TEST(CaseBuilder, AttentionFp8Rejections) {
  EXPECT_EQ(error_of("attention", {{"dtype", "bf16"}, {"sq", 4}, {"hq", 2}, {"d", 64}, {"descale", true}}),
            "parameter 'descale' needs dtype fp8_e4m3fn (descales dequantize fp8 inputs), not bf16");
  EXPECT_NE(error_of("attention", {{"dtype", "e5m2"}, {"sq", 4}, {"hq", 2}, {"d", 64}}).find("dtype"), std::string::npos);
  EXPECT_NE(error_of("attention", {{"dtype", "e4m3"}, {"sq", 4}, {"hq", 2}, {"d", 64}, {"specials", {"inf"}}})
                .find("fp8_e4m3fn cannot hold"),
            std::string::npos);
  EXPECT_EQ(error_of("attention", {{"dtype", "e4m3"}, {"sq", 4}, {"hq", 2}, {"d", 64}, {"specials", {"nan"}}}), "");
}

TEST(CaseBuilder, AttentionRejections) {
  const json base = {{"dtype", "bf16"}, {"sq", 4}, {"hq", 6}, {"d", 64}};
  auto with = [&](json extra) {
    json p = base;
    p.update(extra);
    return error_of("attention", p);
  };
  EXPECT_NE(with({{"hkv", 4}}).find("'hq' (6) must be a multiple of 'hkv' (4)"), std::string::npos);
  EXPECT_NE(with({{"fill", "exact"}}).find("fill 'exact' is not defined for attention"), std::string::npos);
  EXPECT_NE(with({{"seqlens_q", {1, 2}}}).find("is for layout 'varlen'"), std::string::npos);
  EXPECT_NE(with({{"layout", "varlen"}}).find("is for layout 'bshd'"), std::string::npos);
  EXPECT_NE(error_of("attention", {{"dtype", "bf16"}, {"layout", "varlen"}, {"seqlens_q", {1, 2}}, {"seqlens_k", {1}}, {"hq", 2}, {"d", 8}})
                .find("as many sequences"),
            std::string::npos);
  EXPECT_NE(with({{"window_left", -2}}).find("window_left"), std::string::npos);
}

}  // namespace
}  // namespace opcert
