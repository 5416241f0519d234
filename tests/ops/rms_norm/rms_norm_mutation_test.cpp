// rms_norm's mutations (tests/mutants/mutation_fixture.h): cases each of its mutants must fail and
// its correct twin pass.
#include <gtest/gtest.h>

#include <vector>

#include "mutants/mutation_fixture.h"

namespace opcert::mutation {
namespace {

// Tiny activations: mean(x^2) is about 3e-7, so eps (1e-6) shapes the result.
Case rms_norm_small() {
  return make_case("rms_norm", {operand("x", OPCERT_DTYPE_F32, {4, 256}, -1e-3, 1e-3)},
                   {operand("y", OPCERT_DTYPE_F32, {4, 256})}, {{"eps", 1e-6}});
}

Case rms_norm_weighted() {
  return make_case("rms_norm", {operand("x", OPCERT_DTYPE_F32, {4, 256}), operand("weight", OPCERT_DTYPE_F32, {256}, 0.5, 1.5)},
                   {operand("y", OPCERT_DTYPE_F32, {4, 256})});
}

const Mutation kMutations[] = {
    {"mutants.rms_norm.wrong_eps", rms_norm_small},
    {"mutants.rms_norm.weight_dropped", rms_norm_weighted},
    {"mutants.rms_norm.mean_off_by_one", rms_norm_weighted},
};

}  // namespace

INSTANTIATE_TEST_SUITE_P(RmsNorm, MutationTest, ::testing::ValuesIn(kMutations), mutation_name);

}  // namespace opcert::mutation
