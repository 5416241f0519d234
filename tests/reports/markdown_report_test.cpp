#include <gtest/gtest.h>

#include "reports/report_writer.h"
#include "sample_report.h"
#include "test_support.h"

namespace opcert {
namespace {

class Markdown : public ::testing::Test {
 protected:
  std::string write(const RunReport& report) {
    make_markdown_report_writer()->write(report, dir_.path());
    return test::read_file(dir_.path() / "summary.md");
  }
  test::ScratchDir dir_;
};

TEST_F(Markdown, TableRowsPerBackendAndOp) {
  const std::string md = write(test::sample_report());
  EXPECT_NE(md.find("| backend | op | total | passed | failed | mistrusted | skipped | error | crashed | timeout | worst alignment |"),
            std::string::npos)
      << md;
  // Counts and worst ratios from the sample, by hand.
  for (const char* row : {"| cpu | gemm | 3 | 1 | 1 | 1 | 0 | 0 | 0 | 0 | nan |",
                          "| cpu | softmax | 2 | 0 | 0 | 0 | 1 | 0 | 1 | 0 | - |",
                          "| cpu | all ops | 5 | 1 | 1 | 1 | 1 | 0 | 1 | 0 | nan |",
                          "| acme | gemm | 3 | 1 | 0 | 0 | 0 | 1 | 0 | 1 | 0.5 |",
                          "| torch (peer) | gemm | 3 | 3 | 0 | 0 | 0 | 0 | 0 | 0 | - |"})
    EXPECT_NE(md.find(row), std::string::npos) << row << "\n" << md;
  // One op only: no "all ops" row for acme.
  EXPECT_EQ(md.find("| acme | all ops |"), std::string::npos) << md;
}

TEST_F(Markdown, RunFacts) {
  const std::string md = write(test::sample_report());
  EXPECT_EQ(md.rfind("# opcert conformance report\n", 0), 0u) << md;
  EXPECT_NE(md.find("- Suite: `smoke`"), std::string::npos) << md;
  EXPECT_NE(md.find("- Seed: 7\n"), std::string::npos) << md;
  EXPECT_NE(md.find("- Platform: `h100-sxm`\n"), std::string::npos) << md;
  EXPECT_NE(md.find("(commit abc1234)"), std::string::npos) << md;
  EXPECT_NE(md.find("- When: 2024-05-01T12:00:00Z to 2024-05-01T12:01:00Z\n"), std::string::npos) << md;
  EXPECT_NE(md.find("sha256 `" + std::string(64, 'b') + "`"), std::string::npos) << md;
  EXPECT_EQ(md.find("Interrupted run"), std::string::npos) << md;
}

TEST_F(Markdown, EveryNonPassingCaseWithRepro) {
  const std::string md = write(test::sample_report());
  const auto failing = md.find("## Cases that did not pass");
  const auto skipped = md.find("## Skipped cases");
  ASSERT_NE(failing, std::string::npos);
  ASSERT_NE(skipped, std::string::npos);
  const std::string failing_part = md.substr(failing, skipped - failing);
  for (const char* entry : {"- **FAILED** `cpu` `gemm` `g2`", "- **MISTRUSTED** `cpu` `gemm` `g3`",
                            "- **CRASHED** `cpu` `softmax` `s2`", "- **TIMEOUT** `acme` `gemm` `g2`",
                            "- **ERROR** `acme` `gemm` `g3`"})
    EXPECT_NE(failing_part.find(entry), std::string::npos) << entry << "\n" << md;
  EXPECT_EQ(failing_part.find("PASSED"), std::string::npos) << md;
  EXPECT_EQ(failing_part.find("SKIPPED"), std::string::npos) << md;
  EXPECT_NE(failing_part.find("  - worst element: `C[7]: got 1.5, expected 1.25, bound 0.01`"), std::string::npos) << md;
  EXPECT_NE(failing_part.find("  - repro: `opcert run --backend acme --suite smoke --filter '^g3$' --seed 7`"),
            std::string::npos)
      << md;
  EXPECT_NE(failing_part.find("  - message: `worker died: signal 11 (SIGSEGV)`"), std::string::npos) << md;
  // A message with backticks gets a longer fence, so the code span holds all of it; control
  // characters are made visible.
  EXPECT_NE(failing_part.find("  - message: `` bound <1e-3> & \"quoted\" 'single' \\x01 bell\\x07 | pipe `tick` ``\n"),
            std::string::npos)
      << md;
  EXPECT_NE(md.substr(skipped).find("- **SKIPPED** `cpu` `softmax` `s1`"), std::string::npos) << md;
  EXPECT_NE(md.substr(skipped).find("softmax over N > 65536 unsupported"), std::string::npos) << md;
}

TEST_F(Markdown, InterruptedRunSaysSo) {
  auto report = test::sample_report();
  report.complete = false;
  EXPECT_NE(write(report).find("**Interrupted run:**"), std::string::npos);
}

TEST_F(Markdown, AllPassingSaysNone) {
  RunReport report;
  report.results = {test::result("cpu", "gemm", "g1", Status::kPassed, 0.1)};
  const std::string md = write(report);
  EXPECT_NE(md.find("## Cases that did not pass\n\nNone.\n"), std::string::npos) << md;
  EXPECT_EQ(md.find("## Skipped cases"), std::string::npos) << md;
}

TEST_F(Markdown, PipesInTableCellsAreEscaped) {
  RunReport report;
  report.results = {test::result("we|ird", "gemm", "g1", Status::kPassed, 0.1)};
  EXPECT_NE(write(report).find("| we\\|ird | gemm | 1 |"), std::string::npos);
}

}  // namespace
}  // namespace opcert
