// The quantize work model (harness/ops/quantize/quantize_work.cpp, docs/OPS.md "Work model"):
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

TEST(WorkModel, QuantizeCountsInputQuantsAndScales) {
  const auto token = work_model(build("quantize", {{"in_dtype", "fp16"}, {"out_dtype", "int8"}, {"m", 4}, {"k", 16}}));
  EXPECT_EQ(token.bytes, 2.0 * 64 + 64 + 4 * 4);  // x fp16, q int8, scale [4] fp32
  EXPECT_EQ(token.flops, 0.0);
  EXPECT_EQ(token.compute_dtype, "");
  EXPECT_FALSE(token.compute_bound);
  const auto tensor = work_model(build("quantize", {{"in_dtype", "bf16"}, {"out_dtype", "fp8_e4m3fn"}, {"m", 4}, {"k", 16},
                                                    {"granularity", "tensor"}}));
  EXPECT_EQ(tensor.bytes, 2.0 * 64 + 64 + 4);
}

}  // namespace
}  // namespace opcert
