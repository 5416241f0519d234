// The rope work model (harness/ops/rope/rope_work.cpp, docs/OPS.md "Work model"): hand-worked flops
// and bytes on cases built by the real case builder (so operand and attribute names are the ones
// bench will see).
#include "opkit/work_model.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "ops/op_test_support.h"

namespace opcert {
namespace {

using nlohmann::json;

Case build(const std::string& op, const json& params) { return test::build_case(op, params); }

TEST(WorkModel, RopeCountsTablesAndPositions) {
  const auto m = work_model(build("rope", {{"dtype", "bf16"}, {"b", 1}, {"s", 4}, {"hq", 2}, {"hk", 1}, {"d", 8},
                                           {"rotary_dim", 4}, {"positions", true}, {"max_position", 16}}));
  // q, q_out [1,4,2,8] and k, k_out [1,4,1,8] bf16; cos, sin [16,2] fp32; positions [1,4] int32.
  EXPECT_EQ(m.bytes, 2.0 * (64 + 32 + 64 + 32) + 4 * 32 * 2 + 4 * 4);
  EXPECT_EQ(m.flops, 0.0);
  EXPECT_FALSE(m.compute_bound);
}

}  // namespace
}  // namespace opcert
