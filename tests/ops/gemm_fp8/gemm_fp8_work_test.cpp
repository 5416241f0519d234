// The gemm_fp8 work model (harness/ops/gemm_fp8/gemm_fp8_work.cpp, docs/OPS.md "Work model"):
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

TEST(WorkModel, GemmFp8CountsScalesAndBiasAndUsesTheDtypeOfA) {
  const auto m = work_model(build("gemm_fp8", {{"a_dtype", "fp8_e4m3fn"}, {"b_dtype", "fp8_e5m2"}, {"out_dtype", "bf16"},
                                               {"scaling", "channel"}, {"m", 2}, {"n", 3}, {"k", 4}, {"bias", true}}));
  EXPECT_EQ(m.flops, 48.0);
  // a 8, b 12 (1 byte each); a_scale [2] and b_scale [3] fp32; bias [3] and c [2,3] bf16.
  EXPECT_EQ(m.bytes, 8.0 + 12 + 4 * 2 + 4 * 3 + 2 * 3 + 2 * 6);
  EXPECT_EQ(m.compute_dtype, "fp8_e4m3fn");
  EXPECT_TRUE(m.compute_bound);
}

TEST(WorkModel, GemmFp8BlockScales) {
  const auto m = work_model(build("gemm_fp8", {{"a_dtype", "fp8_e5m2"}, {"b_dtype", "fp8_e5m2"}, {"out_dtype", "fp32"},
                                               {"scaling", "block"}, {"m", 3}, {"n", 130}, {"k", 200}}));
  EXPECT_EQ(m.flops, 2.0 * 3 * 130 * 200);
  // a_scale [3, 2], b_scale [2, 2] fp32; c [3, 130] fp32.
  EXPECT_EQ(m.bytes, 3.0 * 200 + 130 * 200 + 4 * 6 + 4 * 4 + 4 * 390);
  EXPECT_EQ(m.compute_dtype, "fp8_e5m2");
}

}  // namespace
}  // namespace opcert
