// The verdict never passes a case on nothing (compare.h, judge): an output with elements none of
// which was checked is ERROR; an output the contract makes empty passes, and its metrics and the
// message say it is empty. Before, "checked 0, total 0" of a wrapped [2^40, 2^40] softmax PASSED.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "check/compare.h"
#include "model/case_result_json.h"

namespace opcert {
namespace {


// The metrics of an fp32 output of `shape` against a reference that holds no value.
TensorMetrics nothing_compared(const std::string& name, std::vector<int64_t> shape) {
  TensorSpec out;
  out.name = name;
  out.shape = std::move(shape);
  ReferenceOutput ref;
  ref.name = name;
  OutputTolerance exact;
  exact.rule = OutputTolerance::Rule::kExact;
  return compare_output(HostTensor(out), ref, exact);
}

TEST(JudgeNothingChecked, AnOutputWithElementsButNoneCheckedIsAnError) {
  const TensorMetrics m = nothing_compared("y", {4, 8});  // a reference that computed nothing
  EXPECT_EQ(m.total, 32);
  EXPECT_FALSE(m.empty);
  std::string message;
  EXPECT_EQ(judge({m}, message), Status::kError);
  EXPECT_EQ(message, "y: 0 of its 32 elements were checked; nothing was judged");
  EXPECT_EQ(judge({m}, message, /*zeros_expected=*/true), Status::kError) << "no tag waives it";
}

TEST(JudgeNothingChecked, AnEmptyOutputPassesAndSaysSoInItsMetrics) {
  const TensorMetrics m = nothing_compared("c", {0, 16});
  EXPECT_EQ(m.total, 0);
  EXPECT_TRUE(m.empty);
  std::string message;
  EXPECT_EQ(judge({m}, message), Status::kPassed);
  EXPECT_EQ(message, "c: empty output (0 elements), nothing to compare");

  CaseResult r;
  r.metrics = {m};
  const auto json = to_json(r);
  EXPECT_EQ(json.at("metrics").at(0).at("empty"), true);
  EXPECT_TRUE(case_result_from_json(json).metrics.at(0).empty) << "read back";
  r.metrics[0].empty = false;
  EXPECT_FALSE(to_json(r).at("metrics").at(0).contains("empty")) << "written only when true";
}

}  // namespace
}  // namespace opcert
