// quantize's mutations (tests/mutants/mutation_fixture.h): cases each of its mutants must fail and
// its correct twin pass.
#include <gtest/gtest.h>

#include <vector>

#include "mutants/mutation_fixture.h"

namespace opcert::mutation {
namespace {

Case quantize_int8() {
  return make_case("quantize", {operand("x", OPCERT_DTYPE_F32, {8, 256}, -8, 8)},
                   {operand("q", OPCERT_DTYPE_I8, {8, 256}), operand("scale", OPCERT_DTYPE_F32, {8})});
}

// Eight values a row: the rows' amax differ widely, so the whole tensor's is the wrong scale.
Case quantize_int8_short_rows() {
  return make_case("quantize", {operand("x", OPCERT_DTYPE_F32, {16, 8}, -8, 8)},
                   {operand("q", OPCERT_DTYPE_I8, {16, 8}), operand("scale", OPCERT_DTYPE_F32, {16})});
}

const Mutation kMutations[] = {
    {"mutants.quantize.wrong_qmax", quantize_int8},
    {"mutants.quantize.wrong_granularity", quantize_int8_short_rows},
};

}  // namespace

INSTANTIATE_TEST_SUITE_P(Quantize, MutationTest, ::testing::ValuesIn(kMutations), mutation_name);

}  // namespace opcert::mutation
