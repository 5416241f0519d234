#include "reports/summary_table.h"

#include <gtest/gtest.h>

#include <regex>

#include "sample_report.h"

namespace opcert {
namespace {

RunReport two_backends() {
  RunReport report;
  report.backends = {{"cpu", "1.0", "built-in", "", "", false}, {"torch", "2.3", "built-in", "", "", true}};
  report.results = {test::result("cpu", "gemm", "g1", Status::kPassed, 0.5),
                    test::result("cpu", "gemm", "g2", Status::kFailed, 0.9),
                    test::result("cpu", "rms_norm", "r1", Status::kSkipped),
                    test::result("torch", "gemm", "g1", Status::kPassed, 0.2),
                    test::result("torch", "gemm", "g2", Status::kPassed, 0.3)};
  report.results[0].alignment_ratio = 2.5;
  report.results[1].alignment_ratio = 3.0;
  return report;
}

TEST(ConsoleSummaryTable, AlignedPlainText) {
  const std::string expected =
      "backend       op        total  passed  failed  mistrusted  skipped  error  crashed  timeout  worst align\n" +
      std::string(104, '-') + "\n" +
      "cpu           gemm          2       1       1           0        0      0        0        0            3\n"
      "cpu           rms_norm      1       0       0           0        1      0        0        0            -\n"
      "cpu           all ops       3       1       1           0        1      0        0        0            3\n"
      "torch (peer)  gemm          2       2       0           0        0      0        0        0            -\n";
  EXPECT_EQ(console_summary_table(two_backends()), expected);
}

TEST(ConsoleSummaryTable, ColorOnlyWhenAskedAndAlignmentKept) {
  const auto report = two_backends();
  const std::string plain = console_summary_table(report, false);
  const std::string colored = console_summary_table(report, true);
  EXPECT_EQ(plain.find('\x1b'), std::string::npos);
  EXPECT_NE(colored.find("\x1b[31m     1\x1b[0m"), std::string::npos) << colored;  // failed, red
  EXPECT_NE(colored.find("\x1b[32m     2\x1b[0m"), std::string::npos) << colored;  // passed, green
  EXPECT_NE(colored.find("\x1b[33m      1\x1b[0m"), std::string::npos) << colored; // skipped, yellow
  EXPECT_EQ(std::regex_replace(colored, std::regex("\x1b\\[[0-9;]*m"), ""), plain);
}

TEST(ConsoleSummaryTable, EmptyRunHasTheHeader) {
  const std::string table = console_summary_table(RunReport{});
  EXPECT_EQ(table.rfind("backend  op  total  passed", 0), 0u) << table;
}

}  // namespace
}  // namespace opcert
