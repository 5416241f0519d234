// gemm's mutations (tests/mutants/mutation_fixture.h): cases each of its mutants must fail and
// its correct twin pass.
#include <gtest/gtest.h>

#include <vector>

#include "mutants/mutation_fixture.h"
#include "session/execution/execution.h"

namespace opcert::mutation {
namespace {

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

Case gemm_fp32_nan_rows() {
  return make_case("gemm", {with_nan_rows(operand("a", OPCERT_DTYPE_F32, {8, 32})), operand("b", OPCERT_DTYPE_F32, {16, 32})},
                   {operand("c", OPCERT_DTYPE_F32, {8, 16})});
}

const Mutation kMutations[] = {
    {"mutants.gemm.bf16_accumulation", gemm_bf16},
    {"mutants.gemm.write_past_end", gemm_bf16},
    {"mutants.gemm.bf16_accumulation", gemm_fp32_tf32, "_allow_tf32"},
    {"mutants.gemm.bf16_inputs", gemm_fp32_tf32, "_allow_tf32"},
    {"mutants.gemm.write_past_end", gemm_fp32_tf32, "_allow_tf32"},
    {"mutants.gemm.bias_dropped", gemm_bf16_bias},
    {"mutants.gemm.layout_ignored", gemm_fp32_kn},
    {"mutants.gemm.nan_spread", gemm_fp32_nan_rows},
};

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

}  // namespace

INSTANTIATE_TEST_SUITE_P(Gemm, MutationTest, ::testing::ValuesIn(kMutations), mutation_name);

}  // namespace opcert::mutation
