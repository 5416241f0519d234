// gemm_fp8's mutations (tests/mutants/mutation_fixture.h): cases each of its mutants must fail and
// its correct twin pass.
#include <gtest/gtest.h>

#include <vector>

#include "mutants/mutation_fixture.h"

namespace opcert::mutation {
namespace {

Case gemm_fp8_block() {
  return make_case("gemm_fp8",
                   {operand("a", OPCERT_DTYPE_F8_E4M3FN, {4, 256}, -240, 240),
                    operand("b", OPCERT_DTYPE_F8_E4M3FN, {256, 256}, -240, 240),
                    operand("a_scale", OPCERT_DTYPE_F32, {4, 2}, 1e-3, 1e-2),
                    operand("b_scale", OPCERT_DTYPE_F32, {2, 2}, 1e-3, 1e-2)},
                   {operand("c", OPCERT_DTYPE_BF16, {4, 256})}, {{"scaling", std::string("block")}});
}

Case gemm_fp8_channel_bias() {
  return make_case("gemm_fp8",
                   {operand("a", OPCERT_DTYPE_F8_E4M3FN, {8, 128}, -240, 240),
                    operand("b", OPCERT_DTYPE_F8_E4M3FN, {32, 128}, -240, 240),
                    operand("a_scale", OPCERT_DTYPE_F32, {8}, 1e-3, 1e-2),
                    operand("b_scale", OPCERT_DTYPE_F32, {32}, 1e-3, 1e-2), operand("bias", OPCERT_DTYPE_BF16, {32})},
                   {operand("c", OPCERT_DTYPE_BF16, {8, 32})}, {{"scaling", std::string("channel")}});
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

const Mutation kMutations[] = {
    {"mutants.gemm_fp8.scale_dropped", gemm_fp8_block},
    {"mutants.gemm_fp8.block_scale_transposed", gemm_fp8_block},
    {"mutants.gemm_fp8.bias_dropped", gemm_fp8_channel_bias},
    {"mutants.gemm_fp8.partial_block_scale", gemm_fp8_block_exact_partial},
};

}  // namespace

INSTANTIATE_TEST_SUITE_P(GemmFp8, MutationTest, ::testing::ValuesIn(kMutations), mutation_name);

}  // namespace opcert::mutation
