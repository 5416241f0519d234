// layer_norm's mutations (tests/mutants/mutation_fixture.h): cases each of its mutants must fail and
// its correct twin pass.
#include <gtest/gtest.h>

#include <vector>

#include "mutants/mutation_fixture.h"

namespace opcert::mutation {
namespace {

Case layer_norm_small() {
  return make_case("layer_norm", {operand("x", OPCERT_DTYPE_F32, {4, 256}, -1e-3, 1e-3)},
                   {operand("y", OPCERT_DTYPE_F32, {4, 256})}, {{"eps", 1e-6}});
}

Case layer_norm_weighted() {
  return make_case("layer_norm",
                   {operand("x", OPCERT_DTYPE_F32, {4, 256}), operand("weight", OPCERT_DTYPE_F32, {256}, 0.5, 1.5),
                    operand("bias", OPCERT_DTYPE_F32, {256})},
                   {operand("y", OPCERT_DTYPE_F32, {4, 256})});
}

const Mutation kMutations[] = {
    {"mutants.layer_norm.wrong_eps", layer_norm_small},
    {"mutants.layer_norm.weight_dropped", layer_norm_weighted},
    {"mutants.layer_norm.unbiased_variance", layer_norm_weighted},
};

}  // namespace

INSTANTIATE_TEST_SUITE_P(LayerNorm, MutationTest, ::testing::ValuesIn(kMutations), mutation_name);

}  // namespace opcert::mutation
