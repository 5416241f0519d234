// The mutation test's common part (docs/TOLERANCES.md, calibration rule 2): the mutant backend as
// `opcert selftest` loads it, a case's operands, and the parameterized test each op's cases join.
// An op's mutations live in its test folder, tests/ops/<op>/<op>_mutation_test.cpp, found there
// (tests/ops/CMakeLists.txt) and built into mutation_test:
//
//   const Mutation kMutations[] = {{"mutants.softmax.last_dropped", softmax_fp32}, ...};
//   INSTANTIATE_TEST_SUITE_P(Softmax, MutationTest, ::testing::ValuesIn(kMutations), mutation_name);
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "loader/registry.h"
#include "model/case.h"

namespace opcert::mutation {

/// The mutant backend, loaded once from its plugin library through discovery and the C ABI.
BackendHandle& mutants();

/// An operand filled uniformly from [lo, hi).
TensorSpec operand(const std::string& name, opcert_dtype dtype, std::vector<int64_t> shape, double lo = -1.0, double hi = 1.0);

/// A case of `op` in suite "mutants", seed 2026.
Case make_case(const std::string& op, std::vector<TensorSpec> inputs, std::vector<TensorSpec> outputs, Attrs attrs = {});

/// t with `specials` (NaN by default) planted in the first half of its rows only, as the suites
/// plant them: the other rows stay finite.
TensorSpec with_nan_rows(TensorSpec t, std::vector<double> specials = {NAN});

struct Mutation {
  const char* impl;        // the broken implementation's key
  Case (*make)();          // a case the defect must show on
  const char* label = "";  // tells apart the tests of one defect on several cases
};

/// Each mutation: the correct twin ("mutants.<op>.correct") passes its case and the mutant fails it.
class MutationTest : public ::testing::TestWithParam<Mutation> {};

/// The test's name: the key after "mutants.", dots as underscores, then the label.
std::string mutation_name(const ::testing::TestParamInfo<Mutation>& info);

}  // namespace opcert::mutation
