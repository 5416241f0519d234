// The gemm_int8 work model (harness/ops/gemm_int8/gemm_int8_work.cpp, docs/OPS.md "Work model"):
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

TEST(WorkModel, GemmInt8) {
  const auto exact = work_model(build("gemm_int8", {{"out_dtype", "int32"}, {"m", 2}, {"n", 3}, {"k", 4}}));
  EXPECT_EQ(exact.flops, 48.0);
  EXPECT_EQ(exact.bytes, 8.0 + 12 + 4 * 6);
  EXPECT_EQ(exact.compute_dtype, "int8");
  EXPECT_TRUE(exact.compute_bound);
  const auto dequant = work_model(build("gemm_int8", {{"out_dtype", "bf16"}, {"m", 2}, {"n", 3}, {"k", 4}, {"bias", true}}));
  EXPECT_EQ(dequant.bytes, 8.0 + 12 + 4 * 2 + 4 * 3 + 2 * 3 + 2 * 6);
  EXPECT_EQ(dequant.compute_dtype, "int8");
}

}  // namespace
}  // namespace opcert
