// Every deliberately broken implementation must be reported FAILED, and the correct naive
// implementation must PASS the very same case, so the case is sensitive to the defect and
// nothing else (docs/TOLERANCES.md, calibration rule 2). The cases are each op's, in its test
// folder (tests/ops/<op>/<op>_mutation_test.cpp); this file holds what they share.
#include "mutants/mutation_fixture.h"

#include <gtest/gtest.h>

#include <memory>
#include <stdexcept>
#include <utility>
#include <vector>

#include "loader/plugin_discovery.h"
#include "session/execution/execution.h"

namespace opcert::mutation {

BackendHandle& mutants() {
  static Registry* registry = [] {
    auto* r = new Registry;
    DiscoveryOptions options;
    options.plugin_libraries = {OPCERT_MUTANTS_PLUGIN};
    discover_plugins(*r, options);
    return r;
  }();
  BackendHandle* handle = registry->find("mutants");
  if (handle == nullptr) throw std::runtime_error("the mutant plugin " OPCERT_MUTANTS_PLUGIN " did not load");
  return *handle;
}

TensorSpec operand(const std::string& name, opcert_dtype dtype, std::vector<int64_t> shape, double lo, double hi) {
  TensorSpec s;
  s.name = name;
  s.dtype = dtype;
  s.shape = std::move(shape);
  s.fill.lo = lo;
  s.fill.hi = hi;
  return s;
}

Case make_case(const std::string& op, std::vector<TensorSpec> inputs, std::vector<TensorSpec> outputs, Attrs attrs) {
  Case c;
  c.suite = "mutants";
  c.id = op + ".mutation";
  c.op = op;
  c.seed = 2026;
  c.inputs = std::move(inputs);
  c.outputs = std::move(outputs);
  c.attrs = std::move(attrs);
  return c;
}

TensorSpec with_nan_rows(TensorSpec t, std::vector<double> specials) {
  t.fill.special_every = 7;
  t.fill.specials = std::move(specials);
  t.fill.special_span = t.shape[0] / 2 * t.shape[1];
  return t;
}

std::string mutation_name(const ::testing::TestParamInfo<Mutation>& info) {
  std::string name = std::string(info.param.impl).substr(sizeof("mutants.") - 1);
  for (char& ch : name)
    if (ch == '.') ch = '_';
  return name + info.param.label;
}

TEST_P(MutationTest, TheCorrectControlPassesAndTheMutantFails) {
  const Case c = GetParam().make();
  const CaseResult control = execute_case(mutants(), "mutants." + c.op + ".correct", c);
  EXPECT_EQ(control.status, Status::kPassed) << control.message;
  const CaseResult mutant = execute_case(mutants(), GetParam().impl, c);
  EXPECT_EQ(mutant.status, Status::kFailed) << GetParam().impl << " was not caught: " << mutant.message;
  if (std::string(GetParam().impl).ends_with("write_past_end")) {
    EXPECT_TRUE(mutant.out_of_bounds_write);
  }
}

}  // namespace opcert::mutation
