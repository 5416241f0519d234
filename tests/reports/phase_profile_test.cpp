#include "reports/phase_profile.h"

#include <gtest/gtest.h>

#include "sample_report.h"

namespace opcert {
namespace {

// Times in powers of two, so that the sums are exact.
PhaseTimes phases(double generate, double reference, double worker, double startup = 0.0, double ipc = 0.0) {
  return PhaseTimes{generate, 0.125, 0.25, reference, 0.0625, worker, startup, ipc};  // copy, launch, check fixed
}

RunReport timed_run() {
  RunReport report;
  report.backends = {{"cpu", "1.0", "built-in", "", "", false}, {"torch", "2.3", "built-in", "", "", true}};
  report.results = {test::result("cpu", "gemm", "g1", Status::kPassed, 0.5),
                    test::result("cpu", "gemm", "g2", Status::kPassed, 0.5),
                    test::result("cpu", "gemm", "g2", Status::kPassed, 0.5),
                    test::result("cpu", "softmax", "s1", Status::kCrashed),
                    test::result("torch", "gemm", "g1", Status::kPassed, 0.2)};
  report.results[0].phases = phases(1.0, 2.0, 4.0, 2.0, 0.5);         // other: 0.5625
  report.results[1].phases = phases(0.5, 4.0, 8.0, 0.0, 0.25);        // other: 3.0625
  report.results[2].phases = phases(0.25, 0.5, 1.0);                  // phases outrun worker: other 0
  report.results[2].impl_key = "cpu.gemm.tiled";
  report.results[4].phases = phases(0.125, 0.125, 1.0);
  return report;
}

TEST(PhaseProfile, SumsEachPhasePerBackendWithItsShareOfTheJobTime) {
  const auto profile = phase_profile(timed_run());
  ASSERT_EQ(profile.size(), 2u);
  const BackendProfile& cpu = profile[0];
  EXPECT_EQ(cpu.name, "cpu");
  EXPECT_EQ(cpu.timed, 3u);
  EXPECT_EQ(cpu.untimed, 1u) << "the crash the runner reported has no phases";
  EXPECT_EQ(cpu.job_seconds, 4.0 + 2.0 + 0.5 + 8.0 + 0.25 + 1.0);
  std::vector<std::string> names;
  for (const auto& line : cpu.lines) names.push_back(line.phase);
  EXPECT_EQ(names, (std::vector<std::string>{"generate", "copy", "launch", "reference", "check", "other", "startup", "ipc"}));
  EXPECT_EQ(cpu.lines[0].seconds, 1.75);
  EXPECT_EQ(cpu.lines[3].seconds, 6.5);
  EXPECT_EQ(cpu.lines[5].seconds, 0.5625 + 3.0625) << "other: the worker's time outside the phases, never below 0";
  EXPECT_EQ(cpu.lines[6].seconds, 2.0);
  EXPECT_EQ(cpu.lines[7].seconds, 0.75);
  EXPECT_EQ(profile[1].name, "torch (peer)");
  EXPECT_EQ(profile[1].timed, 1u);
}

TEST(PhaseProfile, TheSlowestCasesComeFirstNamingTheImplementationWhereACaseRanOnSeveral) {
  RunReport report = timed_run();
  report.results[0].rank = 1;
  const auto profile = phase_profile(report, 2);
  const PhaseLine& reference = profile[0].lines[3];
  ASSERT_EQ(reference.slowest.size(), 2u);
  EXPECT_EQ(reference.slowest[0].label, "g2 [cpu.gemm]");
  EXPECT_EQ(reference.slowest[0].seconds, 4.0);
  EXPECT_EQ(reference.slowest[1].label, "g1 (rank 1)") << "one implementation: its rank tells it apart";
  const PhaseLine& generate = profile[0].lines[0];
  EXPECT_EQ(generate.slowest[0].label, "g1 (rank 1)");
}

TEST(PhaseProfile, TextHasARowPerPhaseAndMarkdownASection) {
  const std::string text = profile_text(timed_run());
  EXPECT_NE(text.find("cpu: 3 job(s), 15.8 s; 1 result(s) without phases"), std::string::npos) << text;
  EXPECT_NE(text.find("    reference    6.50 s   41.3%  g2 [cpu.gemm] 4.00 s, g1 2.00 s, g2 [cpu.gemm.tiled] 500 ms\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("torch (peer): 1 job(s)"), std::string::npos) << text;
  EXPECT_NE(text.find("    startup         0 s    0.0%\n"), std::string::npos) << "no case to name: " << text;
  const std::string md = profile_markdown(timed_run());
  EXPECT_EQ(md.find("\n## Profile\n"), 0u) << md;
  EXPECT_NE(md.find("| cpu | reference | 6.50 s | 41.3% | g2 [cpu.gemm] 4.00 s, g1 2.00 s, g2 [cpu.gemm.tiled] 500 ms |"),
            std::string::npos)
      << md;
}

TEST(PhaseProfile, NothingWhenNoResultHasPhases) {
  RunReport report = timed_run();
  for (auto& r : report.results) r.phases.reset();
  EXPECT_EQ(profile_text(report), "");
  EXPECT_EQ(profile_markdown(report), "");
  EXPECT_EQ(phase_profile(report)[0].untimed, 4u);
}

}  // namespace
}  // namespace opcert
