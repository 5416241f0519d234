// The gemm work model (harness/ops/gemm/gemm_work.cpp, docs/OPS.md "Work model"): hand-worked flops
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

TEST(WorkModel, GemmCountsTwoMnkAndEveryOperandOnce) {
  const auto m = work_model(build("gemm", {{"dtype", "bf16"}, {"m", 2}, {"n", 3}, {"k", 4}, {"bias", true}}));
  EXPECT_EQ(m.flops, 2.0 * 2 * 3 * 4);
  EXPECT_EQ(m.bytes, 2.0 * (8 + 12 + 3 + 6));  // a, b, bias, c in bf16
  EXPECT_EQ(m.compute_dtype, "bf16");
  EXPECT_TRUE(m.compute_bound);
}

TEST(WorkModel, GemmKnLayoutCountsTheSame) {
  const auto nk = work_model(build("gemm", {{"dtype", "fp32"}, {"m", 5}, {"n", 7}, {"k", 9}}));
  const auto kn = work_model(build("gemm", {{"dtype", "fp32"}, {"m", 5}, {"n", 7}, {"k", 9}, {"b_layout", "kn"}}));
  EXPECT_EQ(nk.flops, 630.0);
  EXPECT_EQ(kn.flops, 630.0);
  EXPECT_EQ(kn.bytes, 4.0 * (45 + 63 + 35));
  EXPECT_EQ(kn.compute_dtype, "fp32");
}

TEST(WorkModel, GemmAllowingTf32IsJudgedAgainstTheTf32Peak) {
  const auto m = work_model(build("gemm", {{"dtype", "fp32"}, {"m", 5}, {"n", 7}, {"k", 9}, {"allow_tf32", true}}));
  EXPECT_EQ(m.flops, 630.0);
  EXPECT_EQ(m.compute_dtype, "tf32");
  const auto off = work_model(build("gemm", {{"dtype", "fp32"}, {"m", 5}, {"n", 7}, {"k", 9}, {"allow_tf32", false}}));
  EXPECT_EQ(off.compute_dtype, "fp32");
}

TEST(WorkModel, GemmEmptyHasNoFlops) {
  const auto m = work_model(build("gemm", {{"dtype", "fp16"}, {"m", 0}, {"n", 3}, {"k", 4}}));
  EXPECT_EQ(m.flops, 0.0);
  EXPECT_EQ(m.bytes, 2.0 * 12);  // b only
}

}  // namespace
}  // namespace opcert
