// attention's mutations (tests/mutants/mutation_fixture.h): cases each of its mutants must fail and
// its correct twin pass.
#include <gtest/gtest.h>

#include <vector>

#include "mutants/mutation_fixture.h"

namespace opcert::mutation {
namespace {

Case attention_causal_gqa() {
  return make_case("attention",
                   {operand("q", OPCERT_DTYPE_BF16, {1, 64, 8, 64}), operand("k", OPCERT_DTYPE_BF16, {1, 64, 2, 64}),
                    operand("v", OPCERT_DTYPE_BF16, {1, 64, 2, 64})},
                   {operand("o", OPCERT_DTYPE_BF16, {1, 64, 8, 64}), operand("lse", OPCERT_DTYPE_F32, {1, 8, 64})},
                   {{"causal", int64_t{1}}});
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

const Mutation kMutations[] = {
    {"mutants.attention.causal_off_by_one", attention_causal_gqa},
    {"mutants.attention.wrong_gqa_mapping", attention_causal_gqa},
    {"mutants.attention.scale_ignored", attention_causal_gqa},
    {"mutants.attention.causal_top_left", attention_causal_fewer_queries},
    {"mutants.attention.window_off_by_one", attention_window},
    {"mutants.attention.descale_ignored", attention_fp8_descaled},
    {"mutants.attention.v_descale_from_k", attention_fp8_descaled},
};

}  // namespace

INSTANTIATE_TEST_SUITE_P(Attention, MutationTest, ::testing::ValuesIn(kMutations), mutation_name);

}  // namespace opcert::mutation
