// The mutant detection (harness/selftest): which results count as a catch, and which as a twin's
// false alarm, from report-shaped results.
#include "selftest/mutant_detection.h"

#include <gtest/gtest.h>

namespace opcert {
namespace {

CaseResult result(const std::string& key, const std::string& case_id, Status status, std::optional<int> rank = {}) {
  CaseResult r;
  r.backend = "mutants";
  r.impl_key = key;
  r.case_id = case_id;
  r.op = key.substr(8, key.rfind('.') - 8);
  r.status = status;
  r.message = status == Status::kPassed ? "" : "y: 3 of 8 elements out of bound";
  r.rank = rank;
  return r;
}

RunReport run_of(std::vector<CaseResult> results) {
  RunReport run;
  run.results = std::move(results);
  return run;
}

TEST(MutantDetection, ACaseCatchesAMutantOnlyWhereItsTwinPasses) {
  DetectionTally tally;
  tally.add(run_of({result("mutants.softmax.correct", "a", Status::kPassed),
                    result("mutants.softmax.last_dropped", "a", Status::kFailed),
                    result("mutants.softmax.correct", "b", Status::kFailed),  // a false alarm: b proves nothing
                    result("mutants.softmax.last_dropped", "b", Status::kFailed),
                    result("mutants.softmax.correct", "c", Status::kSkipped),  // not run: not judged
                    result("mutants.softmax.last_dropped", "c", Status::kFailed),
                    result("mutants.softmax.correct", "d", Status::kPassed),
                    result("mutants.softmax.truncated_output", "d", Status::kPassed),
                    result("cpu.softmax.online", "d", Status::kFailed)}),  // not the mutant backend's
            "smoke");
  const DetectionSummary s = tally.summary();
  ASSERT_EQ(s.mutants.size(), 2u);
  EXPECT_EQ(s.mutants[0].slip, "last_dropped");
  EXPECT_EQ(s.mutants[0].judged, 1);  // only a: b's twin failed, c's was skipped
  ASSERT_EQ(s.mutants[0].caught_by.size(), 1u);
  EXPECT_EQ(s.mutants[0].caught_by[0].case_id, "a");
  EXPECT_EQ(s.mutants[0].caught_by[0].suite, "smoke");
  EXPECT_EQ(s.mutants[1].slip, "truncated_output");
  EXPECT_FALSE(s.mutants[1].caught());
  EXPECT_EQ(s.caught(), 1);
  EXPECT_DOUBLE_EQ(s.rate(), 0.5);
  ASSERT_EQ(s.twin_alarms.size(), 1u);
  EXPECT_EQ(s.twin_alarms[0].case_id, "b");
  EXPECT_EQ(s.twin_results, 3);
  EXPECT_FALSE(s.clean());
}

TEST(MutantDetection, AcrossRanksAnyRankThatFailsDecides) {
  DetectionTally tally;
  tally.add(run_of({result("mutants.broadcast.correct", "x", Status::kPassed, 0),
                    result("mutants.broadcast.correct", "x", Status::kPassed, 1),
                    result("mutants.broadcast.root_ignored", "x", Status::kPassed, 0),
                    result("mutants.broadcast.root_ignored", "x", Status::kFailed, 1),
                    result("mutants.all_gather.correct", "y", Status::kPassed, 0),
                    result("mutants.all_gather.correct", "y", Status::kTimeout, 1),
                    result("mutants.all_gather.order_reversed", "y", Status::kFailed, 0)}),
            "collectives");
  const DetectionSummary s = tally.summary();
  ASSERT_EQ(s.mutants.size(), 2u);
  const auto& root_ignored = s.mutants[0].op == "broadcast" ? s.mutants[0] : s.mutants[1];
  EXPECT_TRUE(root_ignored.caught());
  ASSERT_EQ(s.twin_alarms.size(), 1u);  // all_gather's twin timed out on rank 1
  EXPECT_EQ(s.twin_alarms[0].status, "TIMEOUT");
  EXPECT_EQ(s.caught(), 1);  // order_reversed's only case has no passing twin
}

TEST(MutantDetection, AnExpectedMutantWithoutResultsEscapesAndATimeoutCatchesNothing) {
  DetectionTally tally;
  tally.expect("mutants.softmax.last_dropped");
  tally.expect("mutants.gemm.bias_dropped");  // no case of the suite runs gemm
  tally.expect("mutants.gemm.correct");       // a twin is no mutant
  tally.add(run_of({result("mutants.softmax.correct", "a", Status::kPassed),
                    result("mutants.softmax.last_dropped", "a", Status::kTimeout),
                    result("mutants.softmax.correct", "b", Status::kPassed),
                    result("mutants.softmax.last_dropped", "b", Status::kError)}),
            "sweeps/softmax");
  const DetectionSummary s = tally.summary();
  ASSERT_EQ(s.mutants.size(), 2u);
  for (const MutantDetection& m : s.mutants) EXPECT_FALSE(m.caught()) << m.key;
  const auto& gemm = s.mutants[0].op == "gemm" ? s.mutants[0] : s.mutants[1];
  EXPECT_EQ(gemm.judged, 0);
  EXPECT_FALSE(s.clean());
  EXPECT_TRUE(catches(Status::kFailed));
  EXPECT_TRUE(catches(Status::kCrashed));
  EXPECT_FALSE(catches(Status::kMistrusted));
}

TEST(MutantDetection, CleanNeedsEveryMutantCaughtAndSilentTwins) {
  DetectionTally tally;
  EXPECT_FALSE(tally.summary().clean());  // nothing judged proves nothing
  tally.add(run_of({result("mutants.rope.correct", "r", Status::kPassed), result("mutants.rope.wrong_style", "r", Status::kFailed)}),
            "smoke");
  EXPECT_TRUE(tally.summary().clean());
  EXPECT_DOUBLE_EQ(tally.summary().rate(), 1.0);
}

}  // namespace
}  // namespace opcert
