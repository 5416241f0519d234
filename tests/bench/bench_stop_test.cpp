// SIGINT or SIGTERM in the middle of `opcert bench`, as in the middle of `opcert run`
// (session/job/stop_request.h): the bench stops promptly, exits 130, writes what was measured
// (complete: false), and --resume goes on from there. The crashy test plugin hangs in softmax.d5
// (tests/plugins/test_crashy.cpp): the signal arrives while the bench waits on it.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <signal.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "bench/report_files.h"
#include "cli/run_opcert.h"

namespace opcert::test {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

std::vector<std::string> crashy_bench(const std::string& out, const std::string& timeout) {
  return {"bench", "--plugin", TEST_CRASHY_PLUGIN, "--backend", "crashy", "--no-peer", "--suite", CRASHY_SUITE,
          "--out", out, "--benchmark_min_time=20x", "--timeout", timeout};
}

std::vector<std::string> cases_of(const json& benchmarks) {
  std::vector<std::string> cases;
  for (const auto& b : benchmarks) cases.push_back(b.at("case_id"));
  return cases;
}

void stop_mid_bench(int sig, const std::string& name) {
  TempDir dir;
  const std::string out = dir.path() + "/out";
  const std::string log = dir.path() + "/opcert.log";
  const fs::path measurements = fs::path(out) / "measurements.jsonl";
  // d2, d3 (a crash) and d4 are measured, then d5 hangs under a long timeout: the signal arrives there.
  const StoppedCommand stopped = stop_opcert_when(
      crashy_bench(out, "120"), log,
      [&] { return fs::exists(measurements) && read_jsonl(measurements).size() >= 3; }, sig);
  ASSERT_TRUE(stopped.ready) << read_text(log);
  EXPECT_LT(stopped.after_signal, std::chrono::seconds(10)) << "stops promptly";
  ASSERT_TRUE(stopped.exited) << "handled, not killed by the signal";
  EXPECT_EQ(stopped.exit_code, 130) << read_text(log);
  EXPECT_NE(read_text(log).find(name + ": stopped after 3 of 5 benchmarks"), std::string::npos) << read_text(log);

  const json report = read_json(fs::path(out) / "report.json");
  EXPECT_EQ(report.at("complete"), false);
  EXPECT_EQ(report.at("exit_code"), 130);
  EXPECT_EQ(cases_of(report.at("benchmarks")), (std::vector<std::string>{"softmax.d2", "softmax.d3", "softmax.d4"}));
  EXPECT_TRUE(fs::is_regular_file(fs::path(out) / "bench.json"));
  EXPECT_EQ(read_jsonl(measurements).size(), 3u);

  // The same bench with --resume keeps the three cases and measures the rest (d5 now times out).
  std::string resume = "bench --plugin " + std::string(TEST_CRASHY_PLUGIN) + " --backend crashy --no-peer --suite " +
                       CRASHY_SUITE + " --resume " + out + " --benchmark_min_time=20x --timeout 2";
  const auto r = run_opcert(resume);
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;  // d3 CRASHED, d5 TIMEOUT
  EXPECT_NE(r.err.find("3 case(s) measured whole kept"), std::string::npos) << r.err;
  const json resumed = read_json(fs::path(out) / "report.json");
  EXPECT_EQ(resumed.at("complete"), true);
  EXPECT_EQ(resumed.at("run_id"), report.at("run_id"));
  EXPECT_EQ(cases_of(resumed.at("benchmarks")),
            (std::vector<std::string>{"softmax.d2", "softmax.d3", "softmax.d4", "softmax.d5", "softmax.d6"}));
}

TEST(BenchStop, SigintKeepsWhatWasMeasuredAndResumeGoesOn) { stop_mid_bench(SIGINT, "SIGINT"); }

TEST(BenchStop, SigtermKeepsWhatWasMeasured) { stop_mid_bench(SIGTERM, "SIGTERM"); }

}  // namespace
}  // namespace opcert::test
