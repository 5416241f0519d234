// checked_implementation (opcert/sdk/checked_implementation.h): a call the parser refuses is
// declined by query with the parser's reason and thrown as INVALID_ARGUMENT by run; the backend's
// limits decline more; compute sees the typed operands of an accepted call.
#include <gtest/gtest.h>
#include <opcert/sdk/checked_implementation.h>
#include <opcert/sdk/ops/softmax.h>

#include "sdk/call_fixture.h"

namespace opcert::sdk::test {
namespace {

struct Recorder {
  int computed = 0;
  int64_t rows = -1;
};

Implementation softmax_impl(Recorder& r, int32_t device_type = OPCERT_DEVICE_CPU) {
  return checked_implementation(
      {"test.softmax.checked", "softmax", "fp32 only", device_type}, parse_softmax,
      [&r](const SoftmaxOperands& s) {
        ++r.computed;
        r.rows = s.rows;
      },
      [](const SoftmaxOperands& s) {
        return s.dtype == OPCERT_DTYPE_F32 ? Support::yes() : Support::no("this test backend takes fp32 only");
      });
}

TEST(CheckedImplementation, AValidCallIsComputedFromItsOperands) {
  Recorder r;
  const Implementation impl = softmax_impl(r);
  EXPECT_EQ(impl.key, "test.softmax.checked");
  EXPECT_EQ(impl.op, "softmax");
  TestCall c;
  c.in("x", OPCERT_DTYPE_F32, {3, 4}).out("y", OPCERT_DTYPE_F32, {3, 4});
  const OpCall view(c.call());
  EXPECT_TRUE(impl.query(view).supported);
  impl.run(view);
  EXPECT_EQ(r.computed, 1);
  EXPECT_EQ(r.rows, 3);
}

TEST(CheckedImplementation, AContractViolationIsDeclinedWithTheParsersReason) {
  Recorder r;
  const Implementation impl = softmax_impl(r);
  TestCall c;
  c.in("x", OPCERT_DTYPE_F32, {3, 4}).out("y", OPCERT_DTYPE_F32, {4, 3});
  const OpCall view(c.call());
  const Support s = impl.query(view);
  EXPECT_FALSE(s.supported);
  EXPECT_EQ(s.reason, "y has shape [4, 3], expected the shape of x = [3, 4]");
  try {
    impl.run(view);
    FAIL() << "run computed a call its parser refuses";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), OPCERT_ERROR_INVALID_ARGUMENT);
    EXPECT_STREQ(e.what(), "y has shape [4, 3], expected the shape of x = [3, 4]");
  }
  EXPECT_EQ(r.computed, 0);
}

TEST(CheckedImplementation, TheBackendsLimitsComeAfterTheContract) {
  Recorder r;
  const Implementation impl = softmax_impl(r);
  TestCall half;
  half.in("x", OPCERT_DTYPE_F16, {3, 4}).out("y", OPCERT_DTYPE_F16, {3, 4});
  const OpCall view(half.call());
  EXPECT_EQ(impl.query(view).reason, "this test backend takes fp32 only");
  try {
    impl.run(view);
    FAIL() << "run computed a call its limits decline";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), OPCERT_ERROR_UNSUPPORTED);
  }
  TestCall both;  // a contract violation is reported before any limit
  both.in("x", OPCERT_DTYPE_F16, {3, 4}).out("y", OPCERT_DTYPE_F32, {3, 4});
  EXPECT_EQ(impl.query(OpCall(both.call())).reason, "y is fp32, expected fp16 (the dtype of x)");
  EXPECT_EQ(r.computed, 0);
}

TEST(CheckedImplementation, QueryNeedsNoDataRunDoes) {
  Recorder r;
  const Implementation impl = softmax_impl(r, OPCERT_DEVICE_OTHER);
  TestCall c;
  c.in("x", OPCERT_DTYPE_F32, {2, 2}).on(OPCERT_DEVICE_OTHER).without_data();
  c.out("y", OPCERT_DTYPE_F32, {2, 2}).on(OPCERT_DEVICE_OTHER).without_data();
  const OpCall view(c.call());
  EXPECT_TRUE(impl.query(view).supported);
  EXPECT_THROW(impl.run(view), Error);
  EXPECT_EQ(r.computed, 0);
}

}  // namespace
}  // namespace opcert::sdk::test
