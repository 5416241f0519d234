// bench/bench_ranks.h: across ranks, whole units (a case with its peer) are dealt round every
// rank's lanes, those kept by --resume to nobody, and a rank's lanes never take another's units.
#include <gtest/gtest.h>

#include "bench/bench_ranks.h"

namespace opcert {
namespace {

std::vector<BenchUnit> units_of_two(std::size_t count) {
  std::vector<BenchUnit> units;
  for (std::size_t u = 0; u < count; ++u) units.push_back({2 * u, 2 * u + 2, std::nullopt});
  return units;
}

TEST(BenchRanks, UnitsAreDealtRoundTheRanksLanes) {
  const auto units = units_of_two(6);
  const std::vector<char> held(12, 0);
  EXPECT_EQ(deal_units(units, held, {1, 1}), (std::vector<int>{0, 1, 0, 1, 0, 1}));
  EXPECT_EQ(deal_units(units, held, {1, 2}), (std::vector<int>{0, 1, 1, 0, 1, 1})) << "in proportion to the lanes";
  EXPECT_EQ(deal_units(units, held, {1, 0}), (std::vector<int>(6, 0))) << "a rank without lanes gets nothing";
}

TEST(BenchRanks, AUnitHeldWholeGoesToNobody) {
  const auto units = units_of_two(3);
  std::vector<char> held(6, 0);
  held[0] = held[1] = 1;  // unit 0 kept whole
  held[2] = 1;            // unit 1 only in part: timed again
  EXPECT_EQ(deal_units(units, held, {1, 1}), (std::vector<int>{-1, 0, 1}));
}

TEST(BenchRanks, ARankTimesOnlyItsUnits) {
  const auto units = units_of_two(3);
  std::vector<char> held(6, 0);
  const auto mine = units_of_rank(units, {0, 1, 0}, 1, held);
  ASSERT_EQ(mine.size(), 1u);
  EXPECT_EQ(mine[0].first, 2u);
  EXPECT_EQ(held, (std::vector<char>{1, 1, 0, 0, 1, 1})) << "the others' jobs are left to them";
  std::vector<char> alone(6, 0);
  EXPECT_EQ(units_of_rank(units, {}, 0, alone).size(), 3u) << "without ranks: every unit";
}

TEST(BenchRanks, AJobTimedOnARankCarriesItsRank) {
  BenchJob job;
  job.check = CaseResult{};
  tag_rank(job, 3);
  EXPECT_EQ(job.rank, 3);
  EXPECT_EQ(job.check->rank, 3);
}

}  // namespace
}  // namespace opcert
