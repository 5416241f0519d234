// The norms' work models (harness/ops/rms_norm/, harness/ops/layer_norm/, docs/OPS.md "Work
// model"): bytes only, hand-worked on cases built by the real case builders.
#include "opkit/work_model.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "ops/op_test_support.h"

namespace opcert {
namespace {

using nlohmann::json;

Case build(const std::string& op, const json& params) { return test::build_case(op, params); }

TEST(WorkModel, NormsCountBytesOnly) {
  // rms_norm bf16 [3, 8]: x, weight [8], residual, y, residual_out.
  const auto rms = work_model(build("rms_norm", {{"dtype", "bf16"}, {"t", 3}, {"h", 8}, {"residual", true}}));
  EXPECT_EQ(rms.flops, 0.0);
  EXPECT_EQ(rms.bytes, 2.0 * (24 + 8 + 24 + 24 + 24));
  EXPECT_EQ(rms.compute_dtype, "");
  EXPECT_FALSE(rms.compute_bound);
  // layer_norm fp32 [2, 4]: x, weight, bias, y.
  const auto ln = work_model(build("layer_norm", {{"dtype", "fp32"}, {"t", 2}, {"h", 4}, {"bias", true}}));
  EXPECT_EQ(ln.bytes, 4.0 * (8 + 4 + 4 + 8));
  EXPECT_FALSE(ln.compute_bound);
}

}  // namespace
}  // namespace opcert
