// rope's mutations (tests/mutants/mutation_fixture.h): cases each of its mutants must fail and
// its correct twin pass.
#include <gtest/gtest.h>

#include <vector>

#include "mutants/mutation_fixture.h"

namespace opcert::mutation {
namespace {

Case rope_fp32() {
  TensorSpec cos = operand("cos", OPCERT_DTYPE_F32, {8, 32}), sin = operand("sin", OPCERT_DTYPE_F32, {8, 32});
  cos.fill.kind = FillSpec::Kind::kRopeCos;
  sin.fill.kind = FillSpec::Kind::kRopeSin;
  return make_case("rope", {operand("q", OPCERT_DTYPE_F32, {1, 8, 2, 64}), cos, sin},
                   {operand("q_out", OPCERT_DTYPE_F32, {1, 8, 2, 64})});
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

const Mutation kMutations[] = {
    {"mutants.rope.missing_rotary_pair", rope_fp32},
    {"mutants.rope.wrong_style", rope_fp32},
    {"mutants.rope.positions_ignored", rope_positions},
};

}  // namespace

INSTANTIATE_TEST_SUITE_P(Rope, MutationTest, ::testing::ValuesIn(kMutations), mutation_name);

}  // namespace opcert::mutation
