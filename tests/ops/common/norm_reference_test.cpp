// The norms' shared reference (harness/ops/common/norm_reference.cpp): sampled, it matches the
// whole one for rms_norm and layer_norm.
#include <gtest/gtest.h>

#include <string>

#include "ops/reference_test_util.h"

namespace opcert {
namespace {

using testing::CaseUnderTest;

TEST(NormReference, SampleMatchesWhole) {
  for (const std::string op : {"rms_norm", "layer_norm"}) {
    CaseUnderTest t(op);
    t.input("x", OPCERT_DTYPE_BF16, {6, 10}, testing::pseudo_random(60, 31));
    t.input("weight", OPCERT_DTYPE_BF16, {10}, testing::pseudo_random(10, 32));
    t.input("residual", OPCERT_DTYPE_BF16, {6, 10}, testing::pseudo_random(60, 33));
    t.output("y", OPCERT_DTYPE_BF16, {6, 10}).output("residual_out", OPCERT_DTYPE_BF16, {6, 10});
    testing::expect_sample_matches_whole(t, 7);
  }
}

}  // namespace
}  // namespace opcert
