#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "reports/progress.h"

namespace opcert {
namespace {

CaseResult result(Status status, std::string message = "") {
  CaseResult r;
  r.backend = "cpu";
  r.impl_key = "cpu.gemm.blocked";
  r.case_id = "gemm.bf16.m64n48k80.nk";
  r.status = status;
  r.duration_ms = 3.14;
  r.message = std::move(message);
  r.repro = "opcert run --backend cpu";
  return r;
}

std::string captured(const std::function<void(std::FILE*)>& write) {
  char* buffer = nullptr;
  std::size_t size = 0;
  std::FILE* f = open_memstream(&buffer, &size);
  write(f);
  std::fclose(f);
  std::string text(buffer, size);
  std::free(buffer);
  return text;
}

TEST(Progress, ModeNames) {
  EXPECT_EQ(parse_progress_mode("auto"), ProgressMode::kAuto);
  EXPECT_EQ(parse_progress_mode("bar"), ProgressMode::kBar);
  EXPECT_EQ(parse_progress_mode("plain"), ProgressMode::kPlain);
  EXPECT_FALSE(parse_progress_mode("fancy"));
}

TEST(Progress, PlainLineFormat) {
  EXPECT_EQ(progress_line(17, 142, result(Status::kPassed), false),
            "[17/142] cpu cpu.gemm.blocked gemm.bf16.m64n48k80.nk PASSED 3.1 ms");
  EXPECT_EQ(progress_line(1, 2, result(Status::kSkipped, "no fp8"), true),
            "[1/2] cpu cpu.gemm.blocked gemm.bf16.m64n48k80.nk SKIPPED 3.1 ms (peer): no fp8");
}

TEST(Progress, PlainModeGivesFailuresTheirMessageAndRepro) {
  const std::string text = captured([](std::FILE* f) {
    Progress p(ProgressMode::kPlain, f, 2);
    EXPECT_FALSE(p.bar());
    p.finished(result(Status::kPassed), false);
    p.finished(result(Status::kCrashed, "worker died with SIGSEGV during the case"), false);
    p.done();
    EXPECT_EQ(p.failed(), 1u);
  });
  EXPECT_EQ(text,
            "[1/2] cpu cpu.gemm.blocked gemm.bf16.m64n48k80.nk PASSED 3.1 ms\n"
            "[2/2] cpu cpu.gemm.blocked gemm.bf16.m64n48k80.nk CRASHED 3.1 ms\n"
            "    worker died with SIGSEGV during the case\n"
            "    repro: opcert run --backend cpu\n");
}

TEST(Progress, BarModeRedrawsOneLineAndPrintsOnlyProblems) {
  const std::string text = captured([](std::FILE* f) {
    Progress p(ProgressMode::kBar, f, 2);
    EXPECT_TRUE(p.bar());
    p.starting("cpu", "cpu.gemm.blocked", "g1");
    p.finished(result(Status::kPassed), false);
    p.finished(result(Status::kTimeout, "no result"), true);
    p.done();
    EXPECT_EQ(p.failed(), 0u) << "a peer's failure does not count";
  });
  EXPECT_EQ(text.find("PASSED"), std::string::npos) << "passes only move the bar: " << text;
  EXPECT_NE(text.find("TIMEOUT 3.1 ms (peer)\n    no result\n    repro: opcert run --backend cpu\n"), std::string::npos)
      << text;
  EXPECT_NE(text.find("\r[############............] 1/2"), std::string::npos) << text;
  EXPECT_EQ(text.substr(text.size() - 4), "\r\x1b[K") << "the bar is cleared at the end";
}

TEST(Progress, PlainLinesCarryAnEtaOnceAFewCasesFinished) {
  const std::string text = captured([](std::FILE* f) {
    Progress p(ProgressMode::kPlain, f, 5);
    for (int i = 0; i < 4; ++i) p.finished(result(Status::kPassed), false);
    p.done();
  });
  EXPECT_NE(text.find("[2/5] cpu"), std::string::npos) << "none before a few finished: " << text;
  EXPECT_NE(text.find("[3/5 eta "), std::string::npos) << text;
  EXPECT_NE(text.find("[4/5 eta "), std::string::npos) << text;
}

TEST(Progress, TheBarCarriesAnEtaOnceAFewCasesFinished) {
  const std::string text = captured([](std::FILE* f) {
    Progress p(ProgressMode::kBar, f, 5);
    for (int i = 0; i < 3; ++i) p.finished(result(Status::kPassed), false);
    p.done();
  });
  EXPECT_NE(text.find("3/5  failed 0  skipped 0  eta "), std::string::npos) << text;
}

TEST(Eta, NoneBeforeAFewFinishedNorOnceAllAre) {
  const auto start = Eta::Clock::now();
  const Eta eta(start);
  const auto later = start + std::chrono::seconds(30);
  EXPECT_EQ(eta.text(Eta::kMinDone - 1, 10, later), "");
  EXPECT_EQ(eta.text(10, 10, later), "");
  EXPECT_EQ(eta.text(3, 10, later).rfind("eta ", 0), 0u);
}

TEST(Eta, ShortDurations) {
  EXPECT_EQ(short_duration(0.4), "0s");
  EXPECT_EQ(short_duration(45), "45s");
  EXPECT_EQ(short_duration(192), "3m12s");
  EXPECT_EQ(short_duration(7500), "2h05m");
}

}  // namespace
}  // namespace opcert
