// The softmax work model (harness/ops/softmax/softmax_work.cpp, docs/OPS.md "Work model"):
// hand-worked flops and bytes on cases built by the real case builder (so operand and attribute
// names are the ones bench will see).
#include "opkit/work_model.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "ops/op_test_support.h"

namespace opcert {
namespace {

using nlohmann::json;

Case build(const std::string& op, const json& params) { return test::build_case(op, params); }

TEST(WorkModel, SoftmaxReadsAndWritesOnce) {
  const auto m = work_model(build("softmax", {{"dtype", "fp32"}, {"rows", 3}, {"n", 5}}));
  EXPECT_EQ(m.bytes, 4.0 * 15 * 2);
  EXPECT_EQ(m.flops, 0.0);
}

}  // namespace
}  // namespace opcert
