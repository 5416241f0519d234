// Case builders: suite parameters -> the operands of docs/OPS.md (names, shapes, dtypes),
// attributes, fills; and a clear std::invalid_argument for every bad parameter.
#include "ops/op_test_support.h"

#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

namespace opcert {
namespace {

using nlohmann::json;
using Shape = std::vector<int64_t>;

Case build(const std::string& op, const json& params) { return test::build_case(op, params); }

// The message of the std::invalid_argument the builder throws ("" if none).
std::string error_of(const std::string& op, const json& params) {
  try {
    build(op, params);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

const TensorSpec& input(const Case& c, const std::string& name) {
  auto* t = c.find_input(name);
  if (!t) throw std::logic_error("no input " + name);
  return *t;
}

const TensorSpec& output(const Case& c, const std::string& name) {
  auto* t = c.find_output(name);
  if (!t) throw std::logic_error("no output " + name);
  return *t;
}

std::vector<std::string> names(const std::vector<TensorSpec>& specs) {
  std::vector<std::string> out;
  for (const auto& s : specs) out.push_back(s.name);
  return out;
}

using Names = std::vector<std::string>;

TEST(CaseBuilder, EveryCatalogueOpHasOne) {
  for (const char* op : {"gemm", "gemm_fp8", "gemm_int8", "quantize", "attention", "rms_norm", "layer_norm", "rope",
                         "softmax", "all_reduce", "all_gather", "reduce_scatter", "broadcast", "all_to_all"}) {
    const OpDescriptor* d = find_op(op);
    ASSERT_NE(d, nullptr) << op;
    EXPECT_NE(d->build, nullptr) << op;
    EXPECT_NE(d->params, nullptr) << op;
  }
  EXPECT_EQ(find_op("nonsense"), nullptr);
}

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

TEST(CaseBuilder, SampleDefaultsToWholeUpToTwoToThe22Outputs) {
  EXPECT_EQ(build("gemm", {{"dtype", "bf16"}, {"m", 2048}, {"n", 2048}, {"k", 1}}).sample_elements, 0);  // exactly 2^22
  EXPECT_EQ(build("gemm", {{"dtype", "bf16"}, {"m", 2049}, {"n", 2048}, {"k", 1}}).sample_elements, 65536);
  EXPECT_EQ(build("gemm", {{"dtype", "bf16"}, {"m", 8}, {"n", 8}, {"k", 1}, {"sample", 10}}).sample_elements, 10);
}

TEST(CaseBuilder, SpecialsArePlantedInTheFirstInput) {
  const auto c = build("gemm", {{"dtype", "fp16"}, {"m", 64}, {"n", 8}, {"k", 64}, {"specials", {"nan", "inf", "large"}}});
  const auto& fill = input(c, "a").fill;
  EXPECT_EQ(fill.special_every, 97);
  ASSERT_EQ(fill.specials.size(), 3u);
  EXPECT_TRUE(std::isnan(fill.specials[0]));
  EXPECT_EQ(fill.specials[1], INFINITY);
  EXPECT_EQ(fill.specials[2], 4096.0);  // fp16's large magnitude
  EXPECT_EQ(input(c, "b").fill.special_every, 0);
  for (const char* tag : {"nan", "inf", "large"}) EXPECT_NE(std::find(c.tags.begin(), c.tags.end(), tag), c.tags.end()) << tag;
  // A tiny tensor still gets one: every n/2-th element.
  const auto tiny = build("softmax", {{"dtype", "fp32"}, {"rows", 8}, {"n", 1}, {"specials", {"-inf"}}});
  EXPECT_EQ(input(tiny, "x").fill.special_every, 4);
  EXPECT_EQ(input(tiny, "x").fill.specials, (std::vector<double>{-INFINITY}));
  const auto bf16 = build("rms_norm", {{"dtype", "bf16"}, {"t", 4}, {"h", 64}, {"specials", {"-large"}}});
  EXPECT_EQ(input(bf16, "x").fill.specials, (std::vector<double>{-std::ldexp(1.0, 56)}));
}

TEST(CaseBuilder, GemmFp8BlockScaleShapes) {
  const auto c = build("gemm_fp8", {{"m", 5}, {"n", 200}, {"k", 300}, {"scaling", "block"}, {"a_dtype", "e5m2"},
                                    {"out_dtype", "fp16"}, {"bias", true}});
  EXPECT_EQ(names(c.inputs), (Names{"a", "b", "a_scale", "b_scale", "bias"}));
  EXPECT_EQ(input(c, "a").dtype, OPCERT_DTYPE_F8_E5M2);
  EXPECT_EQ(input(c, "b").dtype, OPCERT_DTYPE_F8_E4M3FN);  // default
  EXPECT_EQ(input(c, "a_scale").shape, (Shape{5, 3}));       // ceil(300/128)
  EXPECT_EQ(input(c, "b_scale").shape, (Shape{2, 3}));       // ceil(200/128) x ceil(300/128)
  EXPECT_EQ(input(c, "a_scale").dtype, OPCERT_DTYPE_F32);
  EXPECT_EQ(input(c, "bias").dtype, OPCERT_DTYPE_F16);
  EXPECT_EQ(output(c, "c").dtype, OPCERT_DTYPE_F16);
  EXPECT_EQ(output(c, "c").shape, (Shape{5, 200}));
  EXPECT_EQ(std::get<std::string>(c.attrs.at("scaling")), "block");
  EXPECT_EQ(input(c, "a").fill.hi, 1000.0);  // e5m2 range
  EXPECT_EQ(input(c, "b").fill.hi, 240.0);   // e4m3 range
}

TEST(CaseBuilder, GemmFp8TensorAndChannelScales) {
  const auto t = build("gemm_fp8", {{"m", 5}, {"n", 6}, {"k", 7}});
  EXPECT_EQ(input(t, "a_scale").shape, (Shape{1}));
  EXPECT_EQ(input(t, "b_scale").shape, (Shape{1}));
  EXPECT_EQ(output(t, "c").dtype, OPCERT_DTYPE_BF16);
  EXPECT_TRUE(t.attrs.empty());
  const auto ch = build("gemm_fp8", {{"m", 5}, {"n", 6}, {"k", 7}, {"scaling", "channel"}});
  EXPECT_EQ(input(ch, "a_scale").shape, (Shape{5}));
  EXPECT_EQ(input(ch, "b_scale").shape, (Shape{6}));
}

TEST(CaseBuilder, GemmFp8ExactUsesPowerOfTwoScales) {
  const auto c = build("gemm_fp8", {{"m", 3}, {"n", 130}, {"k", 260}, {"scaling", "block"}, {"fill", "exact"}});
  const auto& s = input(c, "b_scale").fill;
  EXPECT_EQ(s.kind, FillSpec::Kind::kValues);
  ASSERT_EQ(s.values.size(), 6u);  // [2, 3]
  for (double v : s.values) {
    int e = 0;
    EXPECT_EQ(std::frexp(v, &e), 0.5) << v;  // a power of two
  }
  EXPECT_EQ(input(c, "a").fill.kind, FillSpec::Kind::kExact);
  EXPECT_EQ(input(c, "a_scale").fill.values.size(), 9u);  // [3, 3]
}

TEST(CaseBuilder, GemmFp8RejectsInfinityInE4m3) {
  EXPECT_NE(error_of("gemm_fp8", {{"m", 5}, {"n", 6}, {"k", 7}, {"specials", {"inf"}}}).find("no infinity"), std::string::npos);
  EXPECT_EQ(error_of("gemm_fp8", {{"m", 5}, {"n", 6}, {"k", 7}, {"a_dtype", "e5m2"}, {"specials", {"inf"}}}), "");
}

TEST(CaseBuilder, GemmInt8Operands) {
  const auto i32 = build("gemm_int8", {{"m", 5}, {"n", 6}, {"k", 7}});
  EXPECT_EQ(names(i32.inputs), (Names{"a", "b"}));
  EXPECT_EQ(input(i32, "a").dtype, OPCERT_DTYPE_I8);
  EXPECT_EQ(input(i32, "a").fill.kind, FillSpec::Kind::kExact);
  EXPECT_EQ(input(i32, "a").fill.lo, -127.0);
  EXPECT_EQ(input(i32, "a").fill.hi, 127.0);
  EXPECT_EQ(output(i32, "c").dtype, OPCERT_DTYPE_I32);
  const auto bf16 = build("gemm_int8", {{"m", 5}, {"n", 6}, {"k", 7}, {"out_dtype", "bf16"}, {"bias", true}});
  EXPECT_EQ(names(bf16.inputs), (Names{"a", "b", "a_scale", "b_scale", "bias"}));
  EXPECT_EQ(input(bf16, "a_scale").shape, (Shape{5}));
  EXPECT_EQ(input(bf16, "b_scale").shape, (Shape{6}));
  EXPECT_EQ(input(bf16, "bias").dtype, OPCERT_DTYPE_BF16);
  EXPECT_NE(error_of("gemm_int8", {{"m", 5}, {"n", 6}, {"k", 7}, {"bias", true}}).find("'bias' needs a dequantized"),
            std::string::npos);
  EXPECT_NE(error_of("gemm_int8", {{"m", 1}, {"n", 1}, {"k", 131073}}).find("'k' must be at most 131072"), std::string::npos);
}

TEST(CaseBuilder, QuantizeOutputs) {
  const auto tok = build("quantize", {{"m", 5}, {"k", 9}, {"in_dtype", "fp16"}, {"out_dtype", "e4m3"}});
  EXPECT_EQ(names(tok.outputs), (Names{"q", "scale"}));
  EXPECT_EQ(output(tok, "q").dtype, OPCERT_DTYPE_F8_E4M3FN);
  EXPECT_EQ(output(tok, "q").shape, (Shape{5, 9}));
  EXPECT_EQ(output(tok, "scale").shape, (Shape{5}));
  EXPECT_EQ(output(tok, "scale").dtype, OPCERT_DTYPE_F32);
  EXPECT_EQ(input(tok, "x").fill.hi, 8.0);
  const auto ten = build("quantize", {{"m", 5}, {"k", 9}, {"in_dtype", "fp16"}, {"out_dtype", "int8"}, {"granularity", "tensor"}});
  EXPECT_EQ(output(ten, "scale").shape, (Shape{1}));
  EXPECT_EQ(std::get<std::string>(ten.attrs.at("granularity")), "tensor");
  EXPECT_NE(error_of("quantize", {{"m", 5}, {"k", 9}, {"in_dtype", "fp16"}, {"out_dtype", "int8"}, {"specials", {"nan"}}})
                .find("outside the quantize contract"),
            std::string::npos);
}

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

TEST(CaseBuilder, NormsWithResidual) {
  const auto rms = build("rms_norm", {{"dtype", "fp16"}, {"t", 3}, {"h", 17}, {"residual", true}, {"eps", 1e-5}});
  EXPECT_EQ(names(rms.inputs), (Names{"x", "weight", "residual"}));
  EXPECT_EQ(names(rms.outputs), (Names{"y", "residual_out"}));
  EXPECT_EQ(input(rms, "weight").shape, (Shape{17}));
  EXPECT_EQ(input(rms, "residual").shape, (Shape{3, 17}));
  EXPECT_EQ(output(rms, "residual_out").dtype, OPCERT_DTYPE_F16);
  EXPECT_EQ(std::get<double>(rms.attrs.at("eps")), 1e-5);
  EXPECT_EQ(input(rms, "weight").fill.lo, 0.5);
  EXPECT_EQ(input(rms, "weight").fill.hi, 1.5);

  const auto ln = build("layer_norm", {{"dtype", "bf16"}, {"t", 3}, {"h", 8}, {"bias", true}, {"weight", false}});
  EXPECT_EQ(names(ln.inputs), (Names{"x", "bias"}));
  EXPECT_EQ(names(ln.outputs), (Names{"y"}));
  EXPECT_TRUE(ln.attrs.empty());
  EXPECT_NE(error_of("rms_norm", {{"dtype", "fp16"}, {"t", 3}, {"h", 17}, {"bias", true}}).find("unknown parameter 'bias' for rms_norm"),
            std::string::npos);
}

TEST(CaseBuilder, RopeWithPositions) {
  const auto c = build("rope", {{"dtype", "bf16"}, {"b", 2}, {"s", 5}, {"hq", 4}, {"hk", 2}, {"d", 64}, {"rotary_dim", 32},
                                {"positions", true}, {"style", "interleaved"}, {"base", 500000}});
  EXPECT_EQ(names(c.inputs), (Names{"q", "k", "cos", "sin", "positions"}));
  EXPECT_EQ(input(c, "q").shape, (Shape{2, 5, 4, 64}));
  EXPECT_EQ(input(c, "k").shape, (Shape{2, 5, 2, 64}));
  EXPECT_EQ(input(c, "cos").shape, (Shape{5, 16}));  // P defaults to s; R/2 columns
  EXPECT_EQ(input(c, "cos").fill.kind, FillSpec::Kind::kRopeCos);
  EXPECT_EQ(input(c, "sin").fill.kind, FillSpec::Kind::kRopeSin);
  EXPECT_EQ(input(c, "sin").fill.base, 500000.0);
  const auto& pos = input(c, "positions");
  EXPECT_EQ(pos.dtype, OPCERT_DTYPE_I32);
  EXPECT_EQ(pos.shape, (Shape{2, 5}));
  ASSERT_EQ(pos.fill.values.size(), 10u);
  for (double p : pos.fill.values) EXPECT_TRUE(p >= 0 && p < 5 && p == std::floor(p)) << p;
  EXPECT_EQ(pos.fill.values.back(), 4.0);  // P - 1 always read
  EXPECT_EQ(names(c.outputs), (Names{"q_out", "k_out"}));
  EXPECT_EQ(output(c, "k_out").shape, (Shape{2, 5, 2, 64}));
  EXPECT_EQ(std::get<int64_t>(c.attrs.at("rotary_dim")), 32);
  EXPECT_EQ(std::get<std::string>(c.attrs.at("style")), "interleaved");
}

TEST(CaseBuilder, RopeThdWithoutK) {
  const auto c = build("rope", {{"dtype", "fp32"}, {"layout", "thd"}, {"t", 7}, {"hq", 3}, {"hk", 0}, {"d", 8}, {"max_position", 10}});
  EXPECT_EQ(names(c.inputs), (Names{"q", "cos", "sin"}));
  EXPECT_EQ(input(c, "q").shape, (Shape{7, 3, 8}));
  EXPECT_EQ(input(c, "cos").shape, (Shape{10, 4}));
  EXPECT_EQ(names(c.outputs), (Names{"q_out"}));
  EXPECT_NE(error_of("rope", {{"dtype", "fp32"}, {"layout", "thd"}, {"t", 7}, {"hq", 3}, {"d", 8}, {"max_position", 6}})
                .find("'max_position' (6) must be >= the sequence length (7)"),
            std::string::npos);
  EXPECT_NE(error_of("rope", {{"dtype", "fp32"}, {"s", 7}, {"hq", 3}, {"d", 8}, {"rotary_dim", 3}}).find("rotary_dim"), std::string::npos);
}

TEST(CaseBuilder, SoftmaxShapes) {
  const auto c = build("softmax", {{"dtype", "bf16"}, {"shape", {2, 3, 5}}});
  EXPECT_EQ(input(c, "x").shape, (Shape{2, 3, 5}));
  EXPECT_EQ(output(c, "y").shape, (Shape{2, 3, 5}));
  EXPECT_EQ(output(c, "y").dtype, OPCERT_DTYPE_BF16);
  EXPECT_EQ(input(c, "x").fill.lo, -8.0);
  EXPECT_EQ(input(build("softmax", {{"dtype", "fp32"}, {"rows", 4}, {"n", 9}}), "x").shape, (Shape{4, 9}));
  EXPECT_EQ(input(build("softmax", {{"dtype", "fp32"}, {"n", 9}}), "x").shape, (Shape{1, 9}));
  EXPECT_NE(error_of("softmax", {{"dtype", "fp32"}, {"shape", {4}}, {"n", 4}}).find("not both"), std::string::npos);
}

TEST(CaseBuilder, ParameterErrorsNameTheParameter) {
  EXPECT_EQ(error_of("gemm", {{"dtype", "bf16"}, {"m", 1}, {"n", 1}, {"k", 1}, {"bais", true}}),
            "unknown parameter 'bais' for gemm; known: dtype, m, n, k, b_layout, bias, allow_tf32, fill, specials, sample");
  EXPECT_EQ(error_of("gemm", {{"dtype", "int8"}, {"m", 1}, {"n", 1}, {"k", 1}}),
            "parameter 'dtype' must be a dtype among fp32, fp16, bf16, not \"int8\"");
  EXPECT_EQ(error_of("gemm", {{"dtype", "bf16"}, {"m", 1}, {"n", 1}}), "missing required parameter 'k' for gemm");
  EXPECT_EQ(error_of("gemm", {{"dtype", "bf16"}, {"m", 1.5}, {"n", 1}, {"k", 1}}), "parameter 'm' must be an integer, not 1.5");
  EXPECT_EQ(error_of("gemm", {{"dtype", "bf16"}, {"m", -1}, {"n", 1}, {"k", 1}}), "parameter 'm' must be >= 0, not -1");
  EXPECT_EQ(error_of("gemm", {{"dtype", "bf16"}, {"m", 1}, {"n", 1}, {"k", 1}, {"bias", 1}}),
            "parameter 'bias' must be true or false, not 1");
  EXPECT_EQ(error_of("gemm", {{"dtype", "bf16"}, {"m", 1}, {"n", 1}, {"k", 1}, {"b_layout", "t"}}),
            "parameter 'b_layout' must be one of nk, kn, not \"t\"");
  EXPECT_EQ(error_of("gemm", {{"dtype", "bf16"}, {"m", 1}, {"n", 1}, {"k", 1}, {"specials", {"zero"}}}),
            "parameter 'specials' holds 'zero'; known: nan, inf, -inf, large, -large");
  EXPECT_EQ(error_of("gemm", json::array()), "params must be an object, not array");
  EXPECT_NE(error_of("softmax", {{"dtype", "fp32"}, {"n", 4}, {"fill", "exact"}}).find("use fill 'random'"), std::string::npos);
}

}  // namespace
}  // namespace opcert
