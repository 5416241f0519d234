// Every deliberately broken implementation must be reported FAILED, and the correct naive
// implementation must PASS the very same case, so the case is sensitive to the defect and
// nothing else (docs/TOLERANCES.md, calibration rule 2).
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <vector>

#include "loader/plugin_discovery.h"
#include "loader/registry.h"
#include "session/execution.h"

namespace opcert {
namespace {

// The mutant backend as `opcert selftest` loads it: the plugin library, through discovery and the C ABI.
BackendHandle& mutants() {
  static Registry* registry = [] {
    auto* r = new Registry;
    DiscoveryOptions options;
    options.plugin_libraries = {OPCERT_MUTANTS_PLUGIN};
    discover_plugins(*r, options);
    return r;
  }();
  BackendHandle* handle = registry->find("mutants");
  if (handle == nullptr) throw std::runtime_error("the mutant plugin " OPCERT_MUTANTS_PLUGIN " did not load");
  return *handle;
}

TensorSpec operand(const std::string& name, opcert_dtype dtype, std::vector<int64_t> shape, double lo = -1.0,
                   double hi = 1.0) {
  TensorSpec s;
  s.name = name;
  s.dtype = dtype;
  s.shape = std::move(shape);
  s.fill.lo = lo;
  s.fill.hi = hi;
  return s;
}

Case make_case(const std::string& op, std::vector<TensorSpec> inputs, std::vector<TensorSpec> outputs, Attrs attrs = {}) {
  Case c;
  c.suite = "mutants";
  c.id = op + ".mutation";
  c.op = op;
  c.seed = 2026;
  c.inputs = std::move(inputs);
  c.outputs = std::move(outputs);
  c.attrs = std::move(attrs);
  return c;
}

struct Mutation {
  const char* impl;        // the broken implementation's key
  Case (*make)();          // a case the defect must show on
  const char* label = "";  // tells apart the tests of one defect on several cases
};

Case gemm_bf16() {
  return make_case("gemm", {operand("a", OPCERT_DTYPE_BF16, {8, 512}), operand("b", OPCERT_DTYPE_BF16, {16, 512})},
                   {operand("c", OPCERT_DTYPE_BF16, {8, 16})});
}

// fp32 with allow_tf32: the widest gemm bound. K = 16 keeps it tight enough that inputs rounded
// to bf16 (8 times TF32's roundoff) show: their error does not shrink against it as K grows.
Case gemm_fp32_tf32() {
  return make_case("gemm", {operand("a", OPCERT_DTYPE_F32, {16, 16}), operand("b", OPCERT_DTYPE_F32, {32, 16})},
                   {operand("c", OPCERT_DTYPE_F32, {16, 32})}, {{"allow_tf32", int64_t{1}}});
}

Case gemm_fp8_block() {
  return make_case("gemm_fp8",
                   {operand("a", OPCERT_DTYPE_F8_E4M3FN, {4, 256}, -240, 240),
                    operand("b", OPCERT_DTYPE_F8_E4M3FN, {256, 256}, -240, 240),
                    operand("a_scale", OPCERT_DTYPE_F32, {4, 2}, 1e-3, 1e-2),
                    operand("b_scale", OPCERT_DTYPE_F32, {2, 2}, 1e-3, 1e-2)},
                   {operand("c", OPCERT_DTYPE_BF16, {4, 256})}, {{"scaling", std::string("block")}});
}

Case gemm_int8_bf16() {
  TensorSpec a = operand("a", OPCERT_DTYPE_I8, {8, 64}), b = operand("b", OPCERT_DTYPE_I8, {16, 64});
  for (TensorSpec* t : {&a, &b}) {
    t->fill.kind = FillSpec::Kind::kExact;
    t->fill.lo = -127;
    t->fill.hi = 127;
  }
  return make_case("gemm_int8",
                   {a, b, operand("a_scale", OPCERT_DTYPE_F32, {8}, 1e-3, 1e-2),
                    operand("b_scale", OPCERT_DTYPE_F32, {16}, 1e-3, 1e-2)},
                   {operand("c", OPCERT_DTYPE_BF16, {8, 16})});
}

Case quantize_int8() {
  return make_case("quantize", {operand("x", OPCERT_DTYPE_F32, {8, 256}, -8, 8)},
                   {operand("q", OPCERT_DTYPE_I8, {8, 256}), operand("scale", OPCERT_DTYPE_F32, {8})});
}

Case attention_causal_gqa() {
  return make_case("attention",
                   {operand("q", OPCERT_DTYPE_BF16, {1, 64, 8, 64}), operand("k", OPCERT_DTYPE_BF16, {1, 64, 2, 64}),
                    operand("v", OPCERT_DTYPE_BF16, {1, 64, 2, 64})},
                   {operand("o", OPCERT_DTYPE_BF16, {1, 64, 8, 64}), operand("lse", OPCERT_DTYPE_F32, {1, 8, 64})},
                   {{"causal", int64_t{1}}});
}

// Tiny activations: mean(x^2) is about 3e-7, so eps (1e-6) shapes the result.
Case rms_norm_small() {
  return make_case("rms_norm", {operand("x", OPCERT_DTYPE_F32, {4, 256}, -1e-3, 1e-3)},
                   {operand("y", OPCERT_DTYPE_F32, {4, 256})}, {{"eps", 1e-6}});
}

Case layer_norm_small() {
  return make_case("layer_norm", {operand("x", OPCERT_DTYPE_F32, {4, 256}, -1e-3, 1e-3)},
                   {operand("y", OPCERT_DTYPE_F32, {4, 256})}, {{"eps", 1e-6}});
}

Case rope_fp32() {
  TensorSpec cos = operand("cos", OPCERT_DTYPE_F32, {8, 32}), sin = operand("sin", OPCERT_DTYPE_F32, {8, 32});
  cos.fill.kind = FillSpec::Kind::kRopeCos;
  sin.fill.kind = FillSpec::Kind::kRopeSin;
  return make_case("rope", {operand("q", OPCERT_DTYPE_F32, {1, 8, 2, 64}), cos, sin},
                   {operand("q_out", OPCERT_DTYPE_F32, {1, 8, 2, 64})});
}

Case softmax_fp32() {
  return make_case("softmax", {operand("x", OPCERT_DTYPE_F32, {4, 100}, -8, 8)}, {operand("y", OPCERT_DTYPE_F32, {4, 100})});
}

Case gemm_bf16_bias() {
  return make_case("gemm",
                   {operand("a", OPCERT_DTYPE_BF16, {8, 256}), operand("b", OPCERT_DTYPE_BF16, {16, 256}),
                    operand("bias", OPCERT_DTYPE_BF16, {16})},
                   {operand("c", OPCERT_DTYPE_BF16, {8, 16})});
}

// b as [K, N]: read as [N, K] by mistake, the same bytes give other products.
Case gemm_fp32_kn() {
  return make_case("gemm", {operand("a", OPCERT_DTYPE_F32, {8, 64}), operand("b", OPCERT_DTYPE_F32, {64, 16})},
                   {operand("c", OPCERT_DTYPE_F32, {8, 16})}, {{"b_layout", std::string("kn")}});
}

Case gemm_fp8_channel_bias() {
  return make_case("gemm_fp8",
                   {operand("a", OPCERT_DTYPE_F8_E4M3FN, {8, 128}, -240, 240),
                    operand("b", OPCERT_DTYPE_F8_E4M3FN, {32, 128}, -240, 240),
                    operand("a_scale", OPCERT_DTYPE_F32, {8}, 1e-3, 1e-2),
                    operand("b_scale", OPCERT_DTYPE_F32, {32}, 1e-3, 1e-2), operand("bias", OPCERT_DTYPE_BF16, {32})},
                   {operand("c", OPCERT_DTYPE_BF16, {8, 32})}, {{"scaling", std::string("channel")}});
}

Case gemm_int8_bf16_bias() {
  Case c = gemm_int8_bf16();
  c.inputs.push_back(operand("bias", OPCERT_DTYPE_BF16, {16}));
  return c;
}

// Eight values a row: the rows' amax differ widely, so the whole tensor's is the wrong scale.
Case quantize_int8_short_rows() {
  return make_case("quantize", {operand("x", OPCERT_DTYPE_F32, {16, 8}, -8, 8)},
                   {operand("q", OPCERT_DTYPE_I8, {16, 8}), operand("scale", OPCERT_DTYPE_F32, {16})});
}

// Decode-like: 16 queries against 64 keys, where the bottom-right causal mask differs from top-left.
Case attention_causal_fewer_queries() {
  return make_case("attention",
                   {operand("q", OPCERT_DTYPE_F32, {1, 16, 4, 64}), operand("k", OPCERT_DTYPE_F32, {1, 64, 4, 64}),
                    operand("v", OPCERT_DTYPE_F32, {1, 64, 4, 64})},
                   {operand("o", OPCERT_DTYPE_F32, {1, 16, 4, 64})}, {{"causal", int64_t{1}}});
}

Case attention_window() {
  return make_case("attention",
                   {operand("q", OPCERT_DTYPE_F32, {1, 32, 4, 64}), operand("k", OPCERT_DTYPE_F32, {1, 32, 4, 64}),
                    operand("v", OPCERT_DTYPE_F32, {1, 32, 4, 64})},
                   {operand("o", OPCERT_DTYPE_F32, {1, 32, 4, 64})},
                   {{"causal", int64_t{1}}, {"window_left", int64_t{8}}});
}

// fp8 GQA with descales: codes over e4m3's range, a factor amax / 448 per (batch entry, KV head),
// as the suites' fp8 cases, so each descale moves o (and the k and v factors differ).
Case attention_fp8_descaled() {
  std::vector<TensorSpec> in{operand("q", OPCERT_DTYPE_F8_E4M3FN, {2, 32, 4, 64}, -448, 448),
                             operand("k", OPCERT_DTYPE_F8_E4M3FN, {2, 32, 2, 64}, -448, 448),
                             operand("v", OPCERT_DTYPE_F8_E4M3FN, {2, 32, 2, 64}, -448, 448)};
  for (const char* name : {"q_descale", "k_descale", "v_descale"}) in.push_back(operand(name, OPCERT_DTYPE_F32, {2, 2}, 0.5 / 448, 2.0 / 448));
  return make_case("attention", in, {operand("o", OPCERT_DTYPE_BF16, {2, 32, 4, 64})}, {{"causal", int64_t{1}}});
}

Case rms_norm_weighted() {
  return make_case("rms_norm", {operand("x", OPCERT_DTYPE_F32, {4, 256}), operand("weight", OPCERT_DTYPE_F32, {256}, 0.5, 1.5)},
                   {operand("y", OPCERT_DTYPE_F32, {4, 256})});
}

Case layer_norm_weighted() {
  return make_case("layer_norm",
                   {operand("x", OPCERT_DTYPE_F32, {4, 256}), operand("weight", OPCERT_DTYPE_F32, {256}, 0.5, 1.5),
                    operand("bias", OPCERT_DTYPE_F32, {256})},
                   {operand("y", OPCERT_DTYPE_F32, {4, 256})});
}

// Eight tokens [T, H, D] at scattered positions of a 16-row table.
Case rope_positions() {
  TensorSpec cos = operand("cos", OPCERT_DTYPE_F32, {16, 32}), sin = operand("sin", OPCERT_DTYPE_F32, {16, 32});
  cos.fill.kind = FillSpec::Kind::kRopeCos;
  sin.fill.kind = FillSpec::Kind::kRopeSin;
  TensorSpec positions = operand("positions", OPCERT_DTYPE_I32, {8});
  positions.fill.kind = FillSpec::Kind::kValues;
  positions.fill.values = {5, 3, 9, 0, 15, 2, 7, 11};
  return make_case("rope", {operand("q", OPCERT_DTYPE_F32, {8, 2, 64}), cos, sin, positions},
                   {operand("q_out", OPCERT_DTYPE_F32, {8, 2, 64})});
}

// A [4, 4096] x [8, 4096] int8 product whose running sums climb past 2^25 and come back to a few
// times 10^4 (the suites' pattern "crossing", docs/SUITES.md): exact in int32, not in fp32.
Case gemm_int8_crossing() {
  constexpr int64_t kK = 4096, kUp = kK * 15875 / (16129 + 15875);
  TensorSpec a = operand("a", OPCERT_DTYPE_I8, {4, kK}), b = operand("b", OPCERT_DTYPE_I8, {8, kK});
  for (TensorSpec* t : {&a, &b}) t->fill.kind = FillSpec::Kind::kValues;
  for (int64_t r = 0; r < 4; ++r)
    for (int64_t j = 0; j < kK; ++j) a.fill.values.push_back(r % 2 == 0 ? 127 : -127);
  for (int64_t r = 0; r < 8; ++r)
    for (int64_t j = 0; j < kK; ++j) b.fill.values.push_back(j >= kUp ? -125 : j < r ? 126 : 127);
  return make_case("gemm_int8", {a, b}, {operand("c", OPCERT_DTYPE_I32, {4, 8})});
}

// Random int8 at K = 16384, bf16 out: the int32 sum is exact, so the bound is the epilogue's and
// nearly every element is decided; a sum rounded to bf16 before scaling is rounded twice.
Case gemm_int8_bf16_long() {
  Case c = gemm_int8_bf16();
  c.inputs[0].shape = {8, 16384};
  c.inputs[1].shape = {16, 16384};
  return c;
}

// Block-scaled, exact: integer codes, power-of-two scales that differ from block to block, and
// K = 300 (two full blocks and one of 44): the exact result is an fp32 value, and reading the
// partial block's scales from another block moves it by whole units.
Case gemm_fp8_block_exact_partial() {
  TensorSpec a = operand("a", OPCERT_DTYPE_F8_E4M3FN, {4, 300}), b = operand("b", OPCERT_DTYPE_F8_E4M3FN, {256, 300});
  for (TensorSpec* t : {&a, &b}) {
    t->fill.kind = FillSpec::Kind::kExact;
    t->fill.lo = -2;
    t->fill.hi = 2;
  }
  TensorSpec sa = operand("a_scale", OPCERT_DTYPE_F32, {4, 3}), sb = operand("b_scale", OPCERT_DTYPE_F32, {2, 3});
  sa.fill.kind = sb.fill.kind = FillSpec::Kind::kValues;
  sa.fill.values = {2, 1, 0.5, 1, 0.5, 2, 0.25, 2, 1, 0.5, 1, 4};
  sb.fill.values = {1, 0.5, 2, 0.5, 2, 0.25};
  Case c = make_case("gemm_fp8", {a, b, sa, sb}, {operand("c", OPCERT_DTYPE_F32, {4, 256})}, {{"scaling", std::string("block")}});
  c.fill_mode = FillMode::kExact;
  return c;
}

// NaN in the first half of a's rows only (as the suites plant them): the other rows stay finite.
TensorSpec with_nan_rows(TensorSpec t, std::vector<double> specials = {NAN}) {
  t.fill.special_every = 7;
  t.fill.specials = std::move(specials);
  t.fill.special_span = t.shape[0] / 2 * t.shape[1];
  return t;
}

Case gemm_fp32_nan_rows() {
  return make_case("gemm", {with_nan_rows(operand("a", OPCERT_DTYPE_F32, {8, 32})), operand("b", OPCERT_DTYPE_F32, {16, 32})},
                   {operand("c", OPCERT_DTYPE_F32, {8, 16})});
}

Case softmax_nan_inf_rows() {
  return make_case("softmax", {with_nan_rows(operand("x", OPCERT_DTYPE_F32, {8, 64}, -8, 8), {NAN, INFINITY})},
                   {operand("y", OPCERT_DTYPE_F32, {8, 64})});
}

Case softmax_bf16() {
  return make_case("softmax", {operand("x", OPCERT_DTYPE_BF16, {4, 300}, -8, 8)}, {operand("y", OPCERT_DTYPE_BF16, {4, 300})});
}

const Mutation kMutations[] = {
    {"mutants.gemm.bf16_accumulation", gemm_bf16},
    {"mutants.gemm.write_past_end", gemm_bf16},
    {"mutants.gemm.bf16_accumulation", gemm_fp32_tf32, "_allow_tf32"},
    {"mutants.gemm.bf16_inputs", gemm_fp32_tf32, "_allow_tf32"},
    {"mutants.gemm.write_past_end", gemm_fp32_tf32, "_allow_tf32"},
    {"mutants.gemm_fp8.scale_dropped", gemm_fp8_block},
    {"mutants.gemm_fp8.block_scale_transposed", gemm_fp8_block},
    {"mutants.gemm_int8.scale_dropped", gemm_int8_bf16},
    {"mutants.quantize.wrong_qmax", quantize_int8},
    {"mutants.attention.causal_off_by_one", attention_causal_gqa},
    {"mutants.attention.wrong_gqa_mapping", attention_causal_gqa},
    {"mutants.rms_norm.wrong_eps", rms_norm_small},
    {"mutants.layer_norm.wrong_eps", layer_norm_small},
    {"mutants.rope.missing_rotary_pair", rope_fp32},
    {"mutants.softmax.write_past_end", softmax_fp32},
    {"mutants.gemm.bias_dropped", gemm_bf16_bias},
    {"mutants.gemm.layout_ignored", gemm_fp32_kn},
    {"mutants.gemm_fp8.bias_dropped", gemm_fp8_channel_bias},
    {"mutants.gemm_int8.bias_dropped", gemm_int8_bf16_bias},
    {"mutants.quantize.wrong_granularity", quantize_int8_short_rows},
    {"mutants.attention.scale_ignored", attention_causal_gqa},
    {"mutants.attention.causal_top_left", attention_causal_fewer_queries},
    {"mutants.attention.window_off_by_one", attention_window},
    {"mutants.rms_norm.weight_dropped", rms_norm_weighted},
    {"mutants.rms_norm.mean_off_by_one", rms_norm_weighted},
    {"mutants.layer_norm.weight_dropped", layer_norm_weighted},
    {"mutants.layer_norm.unbiased_variance", layer_norm_weighted},
    {"mutants.rope.wrong_style", rope_fp32},
    {"mutants.rope.positions_ignored", rope_positions},
    {"mutants.softmax.last_dropped", softmax_fp32},
    {"mutants.attention.descale_ignored", attention_fp8_descaled},
    {"mutants.attention.v_descale_from_k", attention_fp8_descaled},
    {"mutants.gemm_int8.fp32_accumulation", gemm_int8_crossing},
    {"mutants.gemm_int8.int16_accumulation", gemm_int8_crossing},
    {"mutants.gemm_int8.rounded_before_scale", gemm_int8_bf16_long},
    {"mutants.gemm_fp8.partial_block_scale", gemm_fp8_block_exact_partial},
    {"mutants.gemm.nan_spread", gemm_fp32_nan_rows},
    {"mutants.softmax.nan_spread", softmax_nan_inf_rows},
    {"mutants.softmax.non_finite_rows_zeroed", softmax_nan_inf_rows},
    {"mutants.softmax.exp_rounded", softmax_bf16},
};

class MutationTest : public ::testing::TestWithParam<Mutation> {};

TEST_P(MutationTest, TheCorrectControlPassesAndTheMutantFails) {
  const Case c = GetParam().make();
  const CaseResult control = execute_case(mutants(), "mutants." + c.op + ".correct", c);
  EXPECT_EQ(control.status, Status::kPassed) << control.message;
  const CaseResult mutant = execute_case(mutants(), GetParam().impl, c);
  EXPECT_EQ(mutant.status, Status::kFailed) << GetParam().impl << " was not caught: " << mutant.message;
  if (std::string(GetParam().impl).ends_with("write_past_end")) {
    EXPECT_TRUE(mutant.out_of_bounds_write);
  }
}

// TF32 input rounding is what allow_tf32 permits and nothing else: the same TF32 GEMM passes a
// case that allows it and fails the case that does not (docs/TOLERANCES.md, "TF32 inputs").
TEST(Tf32Mutant, Tf32InputsPassOnlyWhereTheCaseAllowsThem) {
  BackendHandle& backend = mutants();
  const Case allowed =
      make_case("gemm",
                {operand("a", OPCERT_DTYPE_F32, {16, 256}), operand("b", OPCERT_DTYPE_F32, {32, 256}),
                 operand("bias", OPCERT_DTYPE_F32, {32})},
                {operand("c", OPCERT_DTYPE_F32, {16, 32})}, {{"allow_tf32", int64_t{1}}});
  const CaseResult pass = execute_case(backend, "mutants.gemm.tf32_inputs", allowed);
  EXPECT_EQ(pass.status, Status::kPassed) << pass.message;
  Case refused = allowed;
  refused.attrs.erase("allow_tf32");
  const CaseResult fail = execute_case(backend, "mutants.gemm.tf32_inputs", refused);
  EXPECT_EQ(fail.status, Status::kFailed) << "TF32 passed an fp32 case: " << fail.message;
}

INSTANTIATE_TEST_SUITE_P(EveryDefect, MutationTest, ::testing::ValuesIn(kMutations),
                         [](const auto& info) {
                           std::string name = std::string(info.param.impl).substr(sizeof("mutants.") - 1);
                           for (char& ch : name)
                             if (ch == '.') ch = '_';
                           return name + info.param.label;
                         });

}  // namespace
}  // namespace opcert
