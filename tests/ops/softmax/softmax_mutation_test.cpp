// softmax's mutations (tests/mutants/mutation_fixture.h): cases each of its mutants must fail and
// its correct twin pass.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "mutants/mutation_fixture.h"

namespace opcert::mutation {
namespace {

Case softmax_fp32() {
  return make_case("softmax", {operand("x", OPCERT_DTYPE_F32, {4, 100}, -8, 8)}, {operand("y", OPCERT_DTYPE_F32, {4, 100})});
}

Case softmax_nan_inf_rows() {
  return make_case("softmax", {with_nan_rows(operand("x", OPCERT_DTYPE_F32, {8, 64}, -8, 8), {NAN, INFINITY})},
                   {operand("y", OPCERT_DTYPE_F32, {8, 64})});
}

Case softmax_bf16() {
  return make_case("softmax", {operand("x", OPCERT_DTYPE_BF16, {4, 300}, -8, 8)}, {operand("y", OPCERT_DTYPE_BF16, {4, 300})});
}

const Mutation kMutations[] = {
    {"mutants.softmax.write_past_end", softmax_fp32},
    {"mutants.softmax.last_dropped", softmax_fp32},
    {"mutants.softmax.nan_spread", softmax_nan_inf_rows},
    {"mutants.softmax.non_finite_rows_zeroed", softmax_nan_inf_rows},
    {"mutants.softmax.exp_rounded", softmax_bf16},
};

}  // namespace

INSTANTIATE_TEST_SUITE_P(Softmax, MutationTest, ::testing::ValuesIn(kMutations), mutation_name);

}  // namespace opcert::mutation
