// The collectives' parser (opcert/sdk/ops/collectives.h) against docs/OPS.md: each op's sizes on
// n ranks, reduce_op, root (negative from the last rank), in_place; violations; and the readers of
// earlier SDK versions (collective_args.h) answering through it; the implementations and the
// communicator's checked arguments that collective_implementations.h builds on it.
#include <gtest/gtest.h>
#include <opcert/sdk/collective_args.h>
#include <opcert/sdk/collective_implementations.h>
#include <opcert/sdk/ops/collectives.h>

#include <functional>

#include "sdk/call_fixture.h"

namespace opcert::sdk::test {
namespace {

constexpr int32_t kF32 = OPCERT_DTYPE_F32;

TestCall collective(int64_t x, int64_t y, int32_t dtype = kF32) {
  TestCall c;
  c.in("x", dtype, {x}).out("y", dtype, {y});
  return c;
}

auto parser(Collective op, int nranks) {
  return [op, nranks](const OpCall& call, CallCheck& check) { return parse_collective(call, check, op, nranks); };
}

TEST(CollectivesParser, EachOpCountsInItsUnit) {
  struct Form {
    Collective op;
    int64_t x, y, count;
  };
  for (const Form& f : {Form{Collective::kAllReduce, 7, 7, 7}, Form{Collective::kBroadcast, 7, 7, 7},
                        Form{Collective::kAllGather, 7, 28, 7}, Form{Collective::kReduceScatter, 28, 7, 7},
                        Form{Collective::kAllToAll, 28, 28, 7}}) {
    TestCall c = collective(f.x, f.y);
    const auto p = c.parse(parser(f.op, 4));
    ASSERT_TRUE(p.ok) << collective_name(f.op) << ": " << p.reason;
    EXPECT_EQ(p.operands.count, f.count) << collective_name(f.op);
    EXPECT_EQ(p.operands.dtype, kF32);
    EXPECT_EQ(p.operands.reduction, Reduction::kSum);
    EXPECT_FALSE(p.operands.in_place);
  }
}

TEST(CollectivesParser, AttributesAndTheirDefaults) {
  TestCall avg = collective(5, 5, OPCERT_DTYPE_I32);
  avg.attr("reduce_op", "avg").attr("in_place", 1);
  const auto a = avg.parse(parser(Collective::kAllReduce, 2));
  ASSERT_TRUE(a.ok) << a.reason;
  EXPECT_EQ(a.operands.reduction, Reduction::kAvg);
  EXPECT_TRUE(a.operands.in_place);
  TestCall last = collective(3, 3, OPCERT_DTYPE_BF16);
  last.attr("root", -1);
  const auto r = last.parse(parser(Collective::kBroadcast, 4));
  ASSERT_TRUE(r.ok) << r.reason;
  EXPECT_EQ(r.operands.root, 3) << "-1 is the last rank";
  TestCall stray = collective(3, 12);  // reduce_op means nothing to all_gather
  stray.attr("reduce_op", "median");
  EXPECT_TRUE(stray.parse(parser(Collective::kAllGather, 4)).ok);
  TestCall empty = collective(0, 0);
  EXPECT_TRUE(empty.parse(parser(Collective::kAllReduce, 2), true).ok) << "count 0 is a count";
}

TEST(CollectivesParser, Violations) {
  auto reason = [](TestCall c, Collective op, int nranks) { return c.parse(parser(op, nranks)).reason; };
  EXPECT_EQ(reason(collective(7, 7, OPCERT_DTYPE_F64), Collective::kAllReduce, 2), "x must be fp32/fp16/bf16/int32 (got fp64)");
  TestCall mixed;
  mixed.in("x", kF32, {7}).out("y", OPCERT_DTYPE_F16, {7});
  EXPECT_EQ(reason(std::move(mixed), Collective::kAllReduce, 2), "y is fp16, expected fp32 (the dtype of x)");
  EXPECT_EQ(reason(collective(7, 8), Collective::kAllReduce, 2), "y has shape [8], expected [count] (the shape of x) = [7]");
  EXPECT_EQ(reason(collective(7, 7), Collective::kAllGather, 2),
            "y has shape [7], expected [n·count] with n = 2 ranks and count = 7 (x) = [14]");
  EXPECT_EQ(reason(collective(7, 7), Collective::kReduceScatter, 2),
            "x has shape [7], expected [n·count] with n = 2 ranks and count = 7 (y) = [14]");
  EXPECT_EQ(reason(collective(7, 7), Collective::kAllToAll, 2), "x has 7 elements, expected [n·count] with n = 2 ranks");
  TestCall matrix;
  matrix.in("x", kF32, {2, 3}).out("y", kF32, {2, 3});
  EXPECT_EQ(reason(std::move(matrix), Collective::kAllReduce, 2), "x must be 1-D [count] (got [2, 3])");
  TestCall op = collective(4, 4);
  op.attr("reduce_op", "prod");
  EXPECT_EQ(reason(std::move(op), Collective::kReduceScatter, 1),
            "attribute 'reduce_op' must be one of \"sum\", \"max\", \"min\", \"avg\" (got \"prod\")");
  TestCall root = collective(4, 4);
  root.attr("root", 2);
  EXPECT_EQ(reason(std::move(root), Collective::kBroadcast, 2), "attribute 'root' must be a rank of 2, in [-2, 2) (got 2)");
  TestCall in_place = collective(4, 4);
  in_place.attr("in_place", "yes");
  EXPECT_EQ(reason(std::move(in_place), Collective::kAllReduce, 2), "attribute 'in_place' must be an int (got a string)");
  TestCall huge = collective(int64_t{1} << 31, int64_t{1} << 31);
  EXPECT_EQ(reason(std::move(huge), Collective::kAllReduce, 2), "count = 2147483648 elements per rank is above 2^31 - 1");
  TestCall no_y;
  no_y.in("x", kF32, {4});
  EXPECT_EQ(reason(std::move(no_y), Collective::kAllReduce, 2), "missing output 'y'");
}

TEST(CollectivesParser, ArgsCarryTheBuffers) {
  TestCall c = collective(8, 2);
  const auto p = c.parse(parser(Collective::kReduceScatter, 4), true);
  ASSERT_TRUE(p.ok) << p.reason;
  const CollectiveArgs a = collective_args(p.operands);
  EXPECT_EQ(a.op, Collective::kReduceScatter);
  EXPECT_EQ(a.count, 2);
  EXPECT_EQ(a.x_bytes, 32u);
  EXPECT_EQ(a.y_bytes, 8u);
  EXPECT_NE(a.x, nullptr);
}

TEST(CollectivesParser, TheEarlierReadersAnswerThroughTheParser) {
  TestCall good = collective(6, 24);
  good.attr("in_place", 1);
  EXPECT_EQ(collective_unsupported(OpCall(good.call()), Collective::kAllGather, 4), "");
  const CollectiveArgs a = read_collective(OpCall(good.call()), Collective::kAllGather, 4);
  EXPECT_EQ(a.count, 6);
  EXPECT_TRUE(a.in_place);
  TestCall bad = collective(6, 6);
  EXPECT_EQ(collective_unsupported(OpCall(bad.call()), Collective::kAllGather, 4),
            "y has shape [6], expected [n·count] with n = 4 ranks and count = 6 (x) = [24]");
  EXPECT_THROW(read_collective(OpCall(bad.call()), Collective::kAllGather, 4), Error);
  TestCall device;  // these readers never looked at the memory
  device.in("x", kF32, {6}).on(OPCERT_DEVICE_CUDA).out("y", kF32, {6}).on(OPCERT_DEVICE_CUDA);
  EXPECT_EQ(collective_unsupported(OpCall(device.call()), Collective::kAllReduce, 2), "");
  EXPECT_EQ(collective_of("broadcast"), Collective::kBroadcast);
  EXPECT_THROW(collective_of("softmax"), Error);
}

// A backend with host memory, 2 ranks, and one limit: no int32.
CollectiveTarget two_host_ranks() {
  return {OPCERT_DEVICE_CPU, [] { return 2; },
          [](const CollectiveOperands& c) { return c.dtype == OPCERT_DTYPE_I32 ? std::string("no int32 here") : std::string(); }};
}

TEST(CollectiveImplementations, QueriesParseThenAskTheLimits) {
  const auto impls = collective_implementations("test", "loop", "one line", two_host_ranks());
  ASSERT_EQ(impls.size(), 5u);
  EXPECT_EQ(impls[1].key, "test.all_gather.loop");
  EXPECT_EQ(impls[1].op, "all_gather");
  TestCall good = collective(3, 6);
  EXPECT_TRUE(impls[1].query(OpCall(good.call())).supported);
  TestCall sizes = collective(3, 3);
  EXPECT_EQ(impls[1].query(OpCall(sizes.call())).reason,
            "y has shape [3], expected [n·count] with n = 2 ranks and count = 3 (x) = [6]");
  TestCall ints = collective(3, 6, OPCERT_DTYPE_I32);
  EXPECT_EQ(impls[1].query(OpCall(ints.call())).reason, "no int32 here");
  TestCall device;
  device.in("x", kF32, {3}).on(OPCERT_DEVICE_CUDA).out("y", kF32, {6});
  EXPECT_EQ(impls[1].query(OpCall(device.call())).reason, "input 'x' is in CUDA device memory, expected host memory");
  EXPECT_THROW(impls[1].run(OpCall(good.call())), Error) << "a collective runs on a communicator";
}

TEST(CollectiveImplementations, ACommunicatorRunsCheckedArguments) {
  TestCall good = collective(4, 12);  // all_gather on the communicator's 3 ranks, not the query's 2
  const CollectiveArgs a = checked_collective(OpCall(good.call()), Collective::kAllGather, 3, two_host_ranks());
  EXPECT_EQ(a.count, 4);
  EXPECT_EQ(a.y_bytes, 48u);
  TestCall bad = collective(4, 5);
  try {
    checked_collective(OpCall(bad.call()), Collective::kAllReduce, 3, two_host_ranks());
    ADD_FAILURE() << "a contract violation was run";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), OPCERT_ERROR_INVALID_ARGUMENT);
    EXPECT_STREQ(e.what(), "y has shape [5], expected [count] (the shape of x) = [4]");
  }
  TestCall no_data = collective(4, 4);
  no_data.without_data();
  EXPECT_THROW(checked_collective(OpCall(no_data.call()), Collective::kAllReduce, 3, two_host_ranks()), Error);
  TestCall ints = collective(4, 4, OPCERT_DTYPE_I32);
  try {
    checked_collective(OpCall(ints.call()), Collective::kAllReduce, 3, two_host_ranks());
    ADD_FAILURE() << "a limit was run past";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), OPCERT_ERROR_UNSUPPORTED);
    EXPECT_STREQ(e.what(), "no int32 here");
  }
}

}  // namespace
}  // namespace opcert::sdk::test
