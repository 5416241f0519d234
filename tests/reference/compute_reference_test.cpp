// compute_reference, the dispatcher of harness/reference: outputs in the case's order, and an error
// for what the contract does not define. Each op's reference is tested in tests/ops/<op>/.
#include <gtest/gtest.h>

#include <stdexcept>

#include "ops/reference_test_util.h"

namespace opcert {
namespace {

using testing::CaseUnderTest;

TEST(ComputeReference, ReturnsOutputsInCaseOrder) {
  CaseUnderTest t("quantize");
  t.input("x", OPCERT_DTYPE_F32, {1, 2}, {1, 2});
  t.output("scale", OPCERT_DTYPE_F32, {1}).output("q", OPCERT_DTYPE_I8, {1, 2});
  const auto out = t.run();
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].name, "scale");
  EXPECT_EQ(out[1].name, "q");
}

TEST(ComputeReference, RejectsWhatTheContractDoesNotDefine) {
  CaseUnderTest unknown("no_such_op");
  EXPECT_THROW(unknown.run(), std::invalid_argument);
  CaseUnderTest collective("all_reduce");
  EXPECT_THROW(collective.run(), std::invalid_argument);
  CaseUnderTest missing("gemm");
  missing.input("a", OPCERT_DTYPE_F32, {1, 1}, {1}).output("c", OPCERT_DTYPE_F32, {1, 1});
  EXPECT_THROW(missing.run(), std::invalid_argument);
  CaseUnderTest bad_sample = [] {
    CaseUnderTest g("gemm");
    g.input("a", OPCERT_DTYPE_F32, {1, 1}, {1}).input("b", OPCERT_DTYPE_F32, {1, 1}, {1}).output("c", OPCERT_DTYPE_F32, {1, 1});
    return g;
  }();
  EXPECT_THROW(bad_sample.run({{"c", {1}}}), std::invalid_argument);
  EXPECT_THROW(bad_sample.run({{"d", {0}}}), std::invalid_argument);
}

}  // namespace
}  // namespace opcert
