#include <gtest/gtest.h>

#include "model/input_error.h"
#include "session/planning/job_list.h"

namespace opcert {
namespace {

Case make_case(std::string id, std::string op) {
  Case c;
  c.id = std::move(id);
  c.op = std::move(op);
  return c;
}

class JobListTest : public ::testing::Test {
 protected:
  std::vector<Case> cases{make_case("softmax.a", "softmax"), make_case("gemm.b", "gemm"),
                          make_case("softmax.c", "softmax"), make_case("rope.d", "rope")};
  BackendPlan torch{"torch",
                    {{"torch.softmax.native", "softmax", ""}, {"torch.gemm.native", "gemm", ""}, {"torch.rope.native", "rope", ""}},
                    true};
  BackendPlan cpu{"cpu",
                  {{"cpu.gemm.blocked", "gemm", ""}, {"cpu.softmax.rowwise", "softmax", ""}, {"cpu.gemm.naive", "gemm", ""}},
                  false};
};

TEST_F(JobListTest, FilterSearchesIdsAndEmptyMeansAll) {
  EXPECT_EQ(filter_cases(cases, ""), (std::vector<std::size_t>{0, 1, 2, 3}));
  EXPECT_EQ(filter_cases(cases, "softmax"), (std::vector<std::size_t>{0, 2}));
  EXPECT_EQ(filter_cases(cases, "^gemm\\.b$"), (std::vector<std::size_t>{1}));
  EXPECT_EQ(filter_cases(cases, "\\.(a|d)$"), (std::vector<std::size_t>{0, 3}));
  EXPECT_TRUE(filter_cases(cases, "^nothing$").empty());
}

TEST_F(JobListTest, BadRegexIsAnInputErrorNamingTheFlag) {
  try {
    filter_cases(cases, "gemm(");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("--filter 'gemm('"), std::string::npos) << e.what();
  }
  EXPECT_THROW(filter_cases({}, "[z-a]"), InputError) << "checked even with no cases";
}

TEST_F(JobListTest, EveryImplementationOfTheCaseOpInCaseOrder) {
  const std::vector<BackendPlan> plans{torch, cpu};
  const auto jobs = build_jobs(plans, cases, filter_cases(cases, ""), "");
  // cpu has no rope, so the peer skips rope.d too: it runs only what a selected backend runs.
  const std::vector<Job> expected{
      {0, "torch", "torch.softmax.native", 0, true}, {0, "torch", "torch.gemm.native", 1, true},
      {0, "torch", "torch.softmax.native", 2, true}, {1, "cpu", "cpu.softmax.rowwise", 0, false},
      {1, "cpu", "cpu.gemm.blocked", 1, false},      {1, "cpu", "cpu.gemm.naive", 1, false},
      {1, "cpu", "cpu.softmax.rowwise", 2, false},
  };
  EXPECT_EQ(jobs, expected);
}

TEST_F(JobListTest, ImplSelectionAppliesToSelectedBackendsNotThePeer) {
  const std::vector<BackendPlan> plans{torch, cpu};
  const auto jobs = build_jobs(plans, cases, filter_cases(cases, ""), "cpu.gemm.*,!*.naive");
  const std::vector<Job> expected{
      {0, "torch", "torch.gemm.native", 1, true},
      {1, "cpu", "cpu.gemm.blocked", 1, false},
  };
  EXPECT_EQ(jobs, expected);
}

TEST_F(JobListTest, FilteredCasesOnly) {
  const std::vector<BackendPlan> plans{cpu};
  const auto jobs = build_jobs(plans, cases, filter_cases(cases, "softmax.c"), "");
  ASSERT_EQ(jobs.size(), 1u);
  EXPECT_EQ(jobs[0], (Job{0, "cpu", "cpu.softmax.rowwise", 2, false}));
}

TEST_F(JobListTest, SelectedTorchIsGatedAndRunsEverything) {
  BackendPlan gated_torch = torch;
  gated_torch.peer = false;
  const auto jobs = build_jobs({gated_torch}, cases, filter_cases(cases, ""), "");
  ASSERT_EQ(jobs.size(), 4u);
  EXPECT_EQ(jobs[3], (Job{0, "torch", "torch.rope.native", 3, false}));
}

TEST_F(JobListTest, MatchingImplementations) {
  EXPECT_EQ(matching_implementations({cpu}, "*.naive"), (std::vector<std::string>{"cpu.gemm.naive"}));
  EXPECT_TRUE(matching_implementations({cpu}, "cuda.*").empty());
  EXPECT_EQ(matching_implementations({cpu}, "").size(), 3u);
}

}  // namespace
}  // namespace opcert
