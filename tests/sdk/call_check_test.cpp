// What every parser inherits from CallCheck and the attribute readers: a missing operand, one in
// the wrong memory, strided or without data at run time, and attributes of the wrong kind or value
// each give one line naming the operand (attribute), what was expected and what it got.
#include <gtest/gtest.h>
#include <opcert/sdk/ops/softmax.h>

#include "sdk/call_fixture.h"

namespace opcert::sdk::test {
namespace {

TEST(CallCheck, AMissingOperandIsNamed) {
  TestCall c;
  c.out("y", OPCERT_DTYPE_F32, {2, 3});
  const auto p = c.parse(parse_softmax);
  EXPECT_FALSE(p.ok);
  EXPECT_EQ(p.reason, "missing input 'x'");
  TestCall d;
  d.in("x", OPCERT_DTYPE_F32, {2, 3});
  EXPECT_EQ(d.parse(parse_softmax).reason, "missing output 'y'");
}

TEST(CallCheck, AnOperandInOtherMemorySaysWhichAndWhere) {
  TestCall c;
  c.in("x", OPCERT_DTYPE_F32, {2, 3}).on(OPCERT_DEVICE_CUDA).out("y", OPCERT_DTYPE_F32, {2, 3});
  EXPECT_EQ(c.parse(parse_softmax).reason, "input 'x' is in CUDA device memory, expected host memory");
  TestCall d;
  d.in("x", OPCERT_DTYPE_F32, {2, 3}).on(OPCERT_DEVICE_CUDA).out("y", OPCERT_DTYPE_F32, {2, 3});
  EXPECT_EQ(d.parse(parse_softmax, false, OPCERT_DEVICE_CUDA).reason, "output 'y' is in host memory, expected CUDA device memory");
  TestCall e;
  e.in("x", OPCERT_DTYPE_F32, {2, 3}).on(OPCERT_DEVICE_OTHER).out("y", OPCERT_DTYPE_F32, {2, 3}).on(OPCERT_DEVICE_OTHER);
  EXPECT_TRUE(e.parse(parse_softmax, true, OPCERT_DEVICE_OTHER).ok);
}

TEST(CallCheck, DataIsNeededAtRunOnly) {
  TestCall c;
  c.in("x", OPCERT_DTYPE_F32, {2, 3}).without_data().out("y", OPCERT_DTYPE_F32, {2, 3}).without_data();
  EXPECT_TRUE(c.parse(parse_softmax, false).ok) << "a query may come without buffers";
  const auto run = c.parse(parse_softmax, true);
  EXPECT_FALSE(run.ok);
  EXPECT_EQ(run.reason, "input 'x' has no data");
  TestCall empty;  // an empty tensor needs no buffer
  empty.in("x", OPCERT_DTYPE_F32, {0, 3}).without_data().out("y", OPCERT_DTYPE_F32, {0, 3}).without_data();
  EXPECT_TRUE(empty.parse(parse_softmax, true).ok);
}

TEST(CallCheck, StridedViewsAreNotTheContractsLayout) {
  TestCall c;
  c.in("x", OPCERT_DTYPE_F32, {2, 3}).strided({1, 2}).out("y", OPCERT_DTYPE_F32, {2, 3});
  EXPECT_EQ(c.parse(parse_softmax).reason, "input 'x' is not dense row-major (strided views are not supported)");
  TestCall dense;  // row-major strides spelled out are fine
  dense.in("x", OPCERT_DTYPE_F32, {2, 3}).strided({3, 1}).out("y", OPCERT_DTYPE_F32, {2, 3});
  EXPECT_TRUE(dense.parse(parse_softmax).ok);
}

TEST(CallCheck, TheFirstProblemIsTheReason) {
  TestCall c;
  c.in("x", OPCERT_DTYPE_I32, {}).out("y", OPCERT_DTYPE_F16, {4});
  EXPECT_EQ(c.parse(parse_softmax).reason, "x must be fp32/fp16/bf16 (got int32)");
}

// The attribute readers on a bare call (no parser needed).
struct AttrProbe {
  int64_t i = 0;
  bool flag = false;
  double f = 0;
  std::string s;
};

AttrProbe probe(const OpCall& call, CallCheck& check) {
  enum class Pick { kA, kB };
  AttrProbe p;
  p.i = int_attr(check, call, "i", 7);
  p.flag = flag_attr(check, call, "flag", true);
  p.f = float_attr(check, call, "f", 0.5);
  p.s = enum_attr(check, call, "s", Pick::kA, {{"a", Pick::kA}, {"b", Pick::kB}}) == Pick::kB ? "b" : "a";
  return p;
}

TEST(AttributeCheck, AbsentAttributesTakeTheirDefaults) {
  TestCall c;
  const auto p = c.parse(probe);
  ASSERT_TRUE(p.ok) << p.reason;
  EXPECT_EQ(p.operands.i, 7);
  EXPECT_TRUE(p.operands.flag);
  EXPECT_EQ(p.operands.f, 0.5);
  EXPECT_EQ(p.operands.s, "a");
}

TEST(AttributeCheck, GivenValuesAreRead) {
  TestCall c;
  c.attr("i", int64_t{-3}).attr("flag", 0).attr("f", 3).attr("s", "b").attr("unknown", "ignored");
  const auto p = c.parse(probe);
  ASSERT_TRUE(p.ok) << p.reason;
  EXPECT_EQ(p.operands.i, -3);
  EXPECT_FALSE(p.operands.flag);
  EXPECT_EQ(p.operands.f, 3.0) << "an int is taken as a float's value";
  EXPECT_EQ(p.operands.s, "b");
}

TEST(AttributeCheck, WrongKindsAndValuesAreNamed) {
  const auto reason = [](auto&& build) {
    TestCall c;
    build(c);
    return c.parse(probe).reason;
  };
  EXPECT_EQ(reason([](TestCall& c) { c.attr("i", 1.5); }), "attribute 'i' must be an int (got a float)");
  EXPECT_EQ(reason([](TestCall& c) { c.attr("flag", 2); }), "attribute 'flag' must be 0 or 1 (got 2)");
  EXPECT_EQ(reason([](TestCall& c) { c.attr("flag", "yes"); }), "attribute 'flag' must be an int (got a string)");
  EXPECT_EQ(reason([](TestCall& c) { c.attr("f", "x"); }), "attribute 'f' must be a float (got a string)");
  EXPECT_EQ(reason([](TestCall& c) { c.attr("s", 1); }), "attribute 's' must be a string (got an int)");
  EXPECT_EQ(reason([](TestCall& c) { c.attr("s", "c"); }), "attribute 's' must be one of \"a\", \"b\" (got \"c\")");
}

TEST(AttributeCheck, StringChoiceKeepsItsContract) {
  TestCall c;
  c.attr("mode", "fast");
  const auto p = c.parse([](const OpCall& call, CallCheck& check) {
    return string_choice(check, call, "mode", "exact", {"exact", "close"});
  });
  EXPECT_EQ(p.operands, "exact") << "the default when the value is refused";
  EXPECT_EQ(p.reason, "attribute 'mode' must be one of \"exact\", \"close\" (got \"fast\")");
}

}  // namespace
}  // namespace opcert::sdk::test
