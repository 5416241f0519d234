// gemm_int8's mutations (tests/mutants/mutation_fixture.h): cases each of its mutants must fail and
// its correct twin pass.
#include <gtest/gtest.h>

#include <vector>

#include "mutants/mutation_fixture.h"

namespace opcert::mutation {
namespace {

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

Case gemm_int8_bf16_bias() {
  Case c = gemm_int8_bf16();
  c.inputs.push_back(operand("bias", OPCERT_DTYPE_BF16, {16}));
  return c;
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

const Mutation kMutations[] = {
    {"mutants.gemm_int8.scale_dropped", gemm_int8_bf16},
    {"mutants.gemm_int8.bias_dropped", gemm_int8_bf16_bias},
    {"mutants.gemm_int8.fp32_accumulation", gemm_int8_crossing},
    {"mutants.gemm_int8.int16_accumulation", gemm_int8_crossing},
    {"mutants.gemm_int8.rounded_before_scale", gemm_int8_bf16_long},
};

}  // namespace

INSTANTIATE_TEST_SUITE_P(GemmInt8, MutationTest, ::testing::ValuesIn(kMutations), mutation_name);

}  // namespace opcert::mutation
