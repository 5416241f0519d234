// Coverage (reports/coverage.h): the plan's (op, dtype) pairs a backend ran none of and why, and
// its skips grouped by class, in the summary table and summary.md.
#include "reports/coverage.h"

#include <gtest/gtest.h>

#include "reports/report_writer.h"
#include "reports/summary_table.h"
#include "sample_report.h"
#include "test_support.h"

namespace opcert {
namespace {

CaseResult with(CaseResult r, const std::string& dtype, std::string_view skip = "") {
  r.dtype = dtype;
  r.skip_reason = skip;
  return r;
}

// cpu implements gemm and softmax: gemm fp32 runs, gemm bf16 is too big, softmax fp32 is declined
// by both of its implementations; rms_norm it does not implement. acme implements everything and
// ran one case of each pair.
RunReport planned_run() {
  RunReport report;
  report.backends = {{"cpu", "1.0", "built-in", "", "", false}, {"acme", "2.0", "plugin", "/x/libacme.so", "", false}};
  report.backends[0].ops = {"gemm", "softmax"};
  report.backends[1].ops = {"gemm", "softmax", "rms_norm"};
  report.plan = {{"gemm", "fp32", 2}, {"gemm", "bf16", 1}, {"softmax", "fp32", 2}, {"rms_norm", "fp16", 1}};
  using test::result;
  report.results = {with(result("cpu", "gemm", "g1", Status::kPassed, 0.1), "fp32"),
                    with(result("cpu", "gemm", "g2", Status::kFailed, 0.9), "fp32"),
                    with(result("cpu", "gemm", "g3", Status::kSkipped), "bf16", skip_reason::kTooBig),
                    with(result("cpu", "softmax", "s1", Status::kSkipped), "fp32", skip_reason::kDeclined),
                    with(result("cpu", "softmax", "s2", Status::kSkipped), "fp32", skip_reason::kDeclined),
                    with(result("acme", "gemm", "g1", Status::kPassed, 0.1), "fp32"),
                    with(result("acme", "gemm", "g3", Status::kPassed, 0.1), "bf16"),
                    with(result("acme", "softmax", "s1", Status::kPassed, 0.1), "fp32"),
                    with(result("acme", "softmax", "s2", Status::kSkipped), "fp32", skip_reason::kNotRunnable),
                    with(result("acme", "rms_norm", "r1", Status::kError), "fp16")};
  return report;
}

TEST(Coverage, EachPairOfThePlanIsRunOrSaysWhyNot) {
  const auto coverage = coverage_of(planned_run());
  ASSERT_EQ(coverage.size(), 2u);
  const BackendCoverage& cpu = coverage[0];
  EXPECT_EQ(cpu.backend, "cpu");
  EXPECT_EQ(cpu.covered(), 1);
  const auto missing = cpu.missing();
  ASSERT_EQ(missing.size(), 3u);
  EXPECT_EQ(missing[0].op + " " + missing[0].dtype + " " + missing[0].missing, "gemm bf16 too_big");
  EXPECT_EQ(missing[1].op + " " + missing[1].dtype + " " + missing[1].missing, "softmax fp32 declined");
  EXPECT_EQ(missing[2].op + " " + missing[2].dtype + " " + missing[2].missing, "rms_norm fp16 not_implemented");
  EXPECT_EQ(cpu.skipped, (std::map<std::string, int64_t>{{"declined", 2}, {"too_big", 1}}));
  // An ERROR ran: it is the pair's verdict, not a gap in coverage.
  EXPECT_EQ(coverage[1].covered(), 4);
  EXPECT_EQ(skip_groups_text(coverage[1].skipped), "1 not runnable here");
}

TEST(Coverage, AReportWithoutAPlanHasNone) {
  RunReport report = planned_run();
  report.plan.clear();
  EXPECT_TRUE(coverage_of(report).empty());
  EXPECT_EQ(console_summary_table(report).find("coverage"), std::string::npos);
}

TEST(Coverage, TheSummaryTableNamesTheMissingPairsAndGroupsTheSkips) {
  const std::string table = console_summary_table(planned_run());
  EXPECT_NE(table.find("\ncoverage (op x dtype pairs of the plan with a case run):\n"
                       "  cpu: 1 of 4; not covered: gemm bf16 (too big for memory), softmax fp32 (declined by the "
                       "backend), rms_norm fp16 (no implementation); skipped: 2 declined by the backend, 1 too big for "
                       "memory\n"
                       "  acme: 4 of 4; skipped: 1 not runnable here\n"),
            std::string::npos)
      << table;
}

TEST(Coverage, SummaryMdHasACoverageTableAndSkippedCasesByReason) {
  test::ScratchDir dir;
  make_markdown_report_writer()->write(planned_run(), dir.path());
  const std::string md = test::read_file(dir.path() / "summary.md");
  EXPECT_NE(md.find("| cpu | 1 of 4 | gemm bf16 (too big for memory), softmax fp32 (declined by the backend), rms_norm "
                    "fp16 (no implementation) | 2 declined by the backend, 1 too big for memory |\n"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("| acme | 4 of 4 | none | 1 not runnable here |\n"), std::string::npos) << md;
  // Skipped cases under their reason, each reason once, in the order first met.
  const auto too_big = md.find("### too big for memory\n\n- **SKIPPED** `cpu` `gemm` `g3`");
  const auto declined = md.find("### declined by the backend\n\n- **SKIPPED** `cpu` `softmax` `s1`");
  const auto not_runnable = md.find("### not runnable here\n\n- **SKIPPED** `acme` `softmax` `s2`");
  ASSERT_NE(too_big, std::string::npos) << md;
  ASSERT_NE(declined, std::string::npos) << md;
  ASSERT_NE(not_runnable, std::string::npos) << md;
  EXPECT_LT(too_big, declined);
  EXPECT_LT(declined, not_runnable);
  EXPECT_EQ(md.find("### declined by the backend", declined + 1), std::string::npos) << md;
}

}  // namespace
}  // namespace opcert
