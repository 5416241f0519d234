// How the ranks of a job spread a run's cases (--device-mode spread): every pending job once, each
// rank in proportion to its lanes, nothing for a rank without lanes or a job kept by --resume.
#include "session/planning/job_shares.h"

#include <gtest/gtest.h>

namespace opcert {
namespace {

TEST(JobShares, TakesTurnsOverTheRanksLanes) {
  // Two targets; rank 0 has one lane of each, rank 1 two lanes of target 0 and none of target 1.
  const std::vector<std::size_t> targets = {0, 0, 0, 0, 0, 0, 1, 1, 1};
  const std::vector<bool> pending(targets.size(), true);
  const std::vector<int> owners = spread_owners(targets, pending, {{1, 1}, {2, 0}});
  EXPECT_EQ(owners, (std::vector<int>{0, 1, 1, 0, 1, 1, 0, 0, 0}));
}

TEST(JobShares, SkipsWhatIsNotPendingAndTargetsWithoutLanes) {
  const std::vector<std::size_t> targets = {0, 0, 0, 1};
  const std::vector<bool> pending = {true, false, true, true};
  const std::vector<int> owners = spread_owners(targets, pending, {{1, 0}, {1, 0}, {1, 0}});
  EXPECT_EQ(owners, (std::vector<int>{0, -1, 1, -1})) << "the kept job is not run again; the pending ones take turns";
}

TEST(JobShares, ThreeRanksShareEveryJobOnce) {
  const std::vector<std::size_t> targets(10, 0);
  const std::vector<int> owners = spread_owners(targets, std::vector<bool>(10, true), {{1}, {1}, {1}});
  std::vector<int> per_rank(3, 0);
  for (const int o : owners) {
    ASSERT_GE(o, 0);
    ++per_rank[static_cast<std::size_t>(o)];
  }
  EXPECT_EQ(per_rank, (std::vector<int>{4, 3, 3}));
}

}  // namespace
}  // namespace opcert
