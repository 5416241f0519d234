// The CUDA backend's collective plan and test faults, which need neither a GPU nor NCCL: which
// NCCL call and reduction each collective becomes, when avg is NCCL's own and when a sum then a
// division, and how OPCERT_CUDA_TEST_FAULT is read.
#include <gtest/gtest.h>

#include "collectives/collective_plan.h"
#include "collectives/test_fault.h"

namespace opcert::cuda {
namespace {

sdk::CollectiveArgs args(Collective op, int32_t dtype, Reduction r, int64_t count = 7, bool in_place = false) {
  sdk::CollectiveArgs a;
  a.op = op;
  a.dtype = dtype;
  a.reduction = r;
  a.count = count;
  a.in_place = in_place;
  return a;
}

TEST(AvgStrategy, NcclAvgWhereExactElseSumThenDivide) {
  for (int n : {1, 2, 3, 5, 6, 7, 8})
    EXPECT_EQ(avg_strategy(OPCERT_DTYPE_I32, n), AvgStrategy::kNcclAvg) << "int32 on " << n;  // sum, then C's division
  for (int32_t dtype : {OPCERT_DTYPE_F32, OPCERT_DTYPE_F16, OPCERT_DTYPE_BF16}) {
    for (int n : {1, 2, 4, 8, 64}) EXPECT_EQ(avg_strategy(dtype, n), AvgStrategy::kNcclAvg) << dtype << " on " << n;
    for (int n : {3, 5, 6, 7, 12}) EXPECT_EQ(avg_strategy(dtype, n), AvgStrategy::kSumThenDivide) << dtype << " on " << n;
  }
}

TEST(CollectivePlan, AvgOnThreeRanksSumsThenDivides) {
  const CollectivePlan p = plan_collective(args(Collective::kAllReduce, OPCERT_DTYPE_BF16, Reduction::kAvg), 3);
  EXPECT_EQ(p.call, NcclCall::kAllReduce);
  EXPECT_EQ(p.reduction, Reduction::kSum);
  EXPECT_TRUE(p.divide_after());
  const CollectivePlan rs = plan_collective(args(Collective::kReduceScatter, OPCERT_DTYPE_F32, Reduction::kAvg), 6);
  EXPECT_EQ(rs.call, NcclCall::kReduceScatter);
  EXPECT_EQ(rs.reduction, Reduction::kSum);
  EXPECT_TRUE(rs.divide_after());
}

TEST(CollectivePlan, AvgOnFourRanksAndIntAvgAreNcclAvg) {
  const CollectivePlan four = plan_collective(args(Collective::kAllReduce, OPCERT_DTYPE_F16, Reduction::kAvg), 4);
  EXPECT_EQ(four.reduction, Reduction::kAvg);
  EXPECT_FALSE(four.divide_after());
  const CollectivePlan ints = plan_collective(args(Collective::kReduceScatter, OPCERT_DTYPE_I32, Reduction::kAvg), 3);
  EXPECT_EQ(ints.reduction, Reduction::kAvg);
  EXPECT_FALSE(ints.divide_after());
}

TEST(CollectivePlan, MaxMinAndSumPassThrough) {
  for (Reduction r : {Reduction::kSum, Reduction::kMax, Reduction::kMin}) {
    const CollectivePlan p = plan_collective(args(Collective::kAllReduce, OPCERT_DTYPE_F32, r), 3);
    EXPECT_EQ(p.reduction, r);
    EXPECT_EQ(p.avg, AvgStrategy::kNone);
  }
}

TEST(CollectivePlan, DataMovementOpsIgnoreTheReduction) {
  // read_collective leaves reduce_op at its default for these ops, but a stray one must not matter.
  EXPECT_EQ(plan_collective(args(Collective::kAllGather, OPCERT_DTYPE_F32, Reduction::kAvg), 3).avg, AvgStrategy::kNone);
  EXPECT_EQ(plan_collective(args(Collective::kBroadcast, OPCERT_DTYPE_F32, Reduction::kAvg), 3).call, NcclCall::kBroadcast);
  EXPECT_EQ(plan_collective(args(Collective::kAllToAll, OPCERT_DTYPE_F32, Reduction::kSum), 3).call, NcclCall::kSendRecvGroup);
}

TEST(CollectivePlan, CountZeroCallsNothing) {
  for (Collective op : {Collective::kAllReduce, Collective::kAllGather, Collective::kReduceScatter, Collective::kBroadcast,
                        Collective::kAllToAll})
    EXPECT_EQ(plan_collective(args(op, OPCERT_DTYPE_F32, Reduction::kAvg, 0, true), 3).call, NcclCall::kNothing);
}

TEST(CollectivePlan, OnlyAllToAllInPlaceAcrossRanksStagesItsInput) {
  EXPECT_TRUE(plan_collective(args(Collective::kAllToAll, OPCERT_DTYPE_F32, Reduction::kSum, 7, true), 2).stage_input);
  EXPECT_FALSE(plan_collective(args(Collective::kAllToAll, OPCERT_DTYPE_F32, Reduction::kSum, 7, false), 2).stage_input);
  EXPECT_FALSE(plan_collective(args(Collective::kAllToAll, OPCERT_DTYPE_F32, Reduction::kSum, 7, true), 1).stage_input);
  EXPECT_FALSE(plan_collective(args(Collective::kAllGather, OPCERT_DTYPE_F32, Reduction::kSum, 7, true), 2).stage_input);
}

TEST(NcclVersion, OlderThan214IsDeclinedWithBothVersionsNamed) {
  EXPECT_EQ(nccl_declines(nccl_version_code(2, 14, 3)), "");
  EXPECT_EQ(nccl_declines(nccl_version_code(2, 28, 3)), "");
  const std::string why = nccl_declines(nccl_version_code(2, 12, 10));
  EXPECT_NE(why.find("2.12.10"), std::string::npos) << why;
  EXPECT_NE(why.find("2.14.0"), std::string::npos) << why;
  EXPECT_EQ(nccl_version_text(22803), "2.28.3");
}

TEST(TestFaults, ParsesActionsRanksAndCounts) {
  const auto faults = parse_test_faults("exit:1@2,hang:0@3");
  ASSERT_EQ(faults.size(), 2u);
  EXPECT_EQ(faults[0].action, TestFault::Action::kExit);
  EXPECT_EQ(faults[0].rank, 1);
  EXPECT_EQ(faults[0].at, 2);
  EXPECT_EQ(faults[1].action, TestFault::Action::kHang);
  EXPECT_EQ(faults[1].rank, 0);
  EXPECT_EQ(faults[1].at, 3);
  EXPECT_TRUE(parse_test_faults("").empty());
}

TEST(TestFaults, BadItemsAreNamed) {
  for (const char* bad : {"hang", "hang:1", "sleep:1@2", "hang:x@2", "hang:1@0", "hang:1@2x", "hang@1:2", "hang:-1@2"}) {
    try {
      parse_test_faults(std::string("exit:0@1,") + bad);
      ADD_FAILURE() << bad << " was accepted";
    } catch (const sdk::Error& e) {
      EXPECT_EQ(e.code(), OPCERT_ERROR_INVALID_ARGUMENT);
      EXPECT_NE(std::string(e.what()).find(std::string("'") + bad + "'"), std::string::npos) << e.what();
    }
  }
}

TEST(TestFaults, StrikeTheNamedRankAtItsKthCollectiveOnly) {
  TestFaults on_rank1(parse_test_faults("hang:1@2"));
  EXPECT_FALSE(on_rank1.next_collective(1));
  EXPECT_EQ(on_rank1.next_collective(1), TestFault::Action::kHang);
  EXPECT_FALSE(on_rank1.next_collective(1));
  TestFaults on_rank0(parse_test_faults("hang:1@2"));
  for (int i = 0; i < 4; ++i) EXPECT_FALSE(on_rank0.next_collective(0));
}

}  // namespace
}  // namespace opcert::cuda
