// `opcert compare` end to end, as CI runs it: a bench of the paced test plugin (softmax cases of
// 1, 2 and 3 ms of set device time), then one with a real regression injected (rows20 made 20%
// slower, rows30 made wrong), must fail naming exactly those rows; unchanged runs of the jittery
// plugin must compare clean, twenty times over.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "bench/report_files.h"
#include "cli/run_opcert.h"

namespace opcert::test {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

std::string bench_args(const std::string& out, const std::string& impl, const std::string& extra) {
  return std::string("bench --plugin ") + TEST_PACED_PLUGIN + " --backend paced --no-peer --suite " + PACED_SUITE +
         " --impl " + impl + " --out " + out + " " + extra;
}

// Five repetitions of steady launches: enough for the rank test (5 against 5 reaches p = 0.008).
std::string steady(const std::string& out, const std::string& extra = "") {
  return bench_args(out, "paced.softmax.steady", "--benchmark_min_time=0.02 --benchmark_repetitions=5 " + extra);
}

constexpr const char* kRegression = "OPCERT_TEST_PACED_SLOWER_ROWS=20 OPCERT_TEST_PACED_WRONG_ROWS=30";

std::set<std::string> failures_of(const json& comparison) {
  std::set<std::string> f;
  for (const auto& x : comparison.at("failures"))
    f.insert(x.at("gate").get<std::string>() + " " + x.at("case").get<std::string>() + " " + x.at("impl").get<std::string>());
  return f;
}

class CompareEndToEnd : public ::testing::Test {
 protected:
  void SetUp() override {
    base_ = dir_.path() + "/base";
    regressed_ = dir_.path() + "/regressed";
    const auto b = run_opcert(steady(base_));
    ASSERT_EQ(b.exit_code, 0) << b.out << b.err;
  }
  TempDir dir_;
  std::string base_, regressed_;
};

TEST_F(CompareEndToEnd, AnInjectedRegressionFailsNamingExactlyItsRows) {
  const auto r = run_opcert(steady(regressed_), kRegression);
  ASSERT_EQ(r.exit_code, 1) << "the wrong case fails the bench itself\n" << r.out << r.err;
  const std::string json_path = dir_.path() + "/c.json", md = dir_.path() + "/c.md", junit = dir_.path() + "/c.xml";
  const auto c = run_opcert("compare " + base_ + " " + regressed_ + " --json " + json_path + " --markdown " + md +
                            " --junit " + junit);
  EXPECT_EQ(c.exit_code, 1) << c.out << c.err;
  const json doc = read_json(json_path);
  EXPECT_EQ(failures_of(doc), (std::set<std::string>{"perf rows20 paced.softmax.steady",
                                                     "status rows30 paced.softmax.steady"}))
      << doc.dump(2);
  for (const auto& t : doc.at("timings")) {
    if (t.at("case") == "rows20") {
      EXPECT_NEAR(t.at("change").get<double>(), 0.20, 1e-6);
      EXPECT_LT(t.at("p_value").get<double>(), 0.05);
    } else {
      EXPECT_EQ(t.at("verdict"), "unchanged") << t.dump();
    }
  }
  const std::string problems = schema_problems(COMPARE_SCHEMA, json_path);
  if (problems != "skip") {
    EXPECT_EQ(problems, "");
  }
  // The terminal names them; the Markdown and the JUnit XML carry them.
  EXPECT_NE(c.out.find("FAIL perf rows20 paced.softmax.steady: +20.0%"), std::string::npos) << c.out;
  EXPECT_NE(c.out.find("FAIL status rows30 paced.softmax.steady: PASSED -> FAILED"), std::string::npos) << c.out;
  EXPECT_EQ(c.out.find("\033["), std::string::npos) << "no colour off a terminal";
  std::ifstream markdown(md);
  std::stringstream m;
  m << markdown.rdbuf();
  EXPECT_NE(m.str().find("**Failed**"), std::string::npos) << m.str();
  EXPECT_NE(m.str().find("| perf | `rows20` |"), std::string::npos) << m.str();
  if (std::system("command -v xmllint >/dev/null 2>&1") == 0) {
    EXPECT_EQ(std::system(("xmllint --noout --schema " + std::string(JUNIT_SCHEMA) + " " + junit + " 2>/dev/null").c_str()), 0);
    std::ifstream xml(junit);
    std::stringstream x;
    x << xml.rdbuf();
    EXPECT_NE(x.str().find("failures=\"2\""), std::string::npos) << x.str();
  }
}

TEST_F(CompareEndToEnd, UnchangedJitteryRunsCompareCleanTwentyTimes) {
  // ±20% of launch-to-launch noise, a new seed every process: sampling to --max-time puts
  // thousands of launches behind each of 4 repetitions, and no comparison may fail. Twenty
  // comparisons of 21 runs, each run against the next: each pair is still two processes of their
  // own, and 19 benches fewer than twenty pairs of fresh runs (a third of this test's time).
  const std::string flags = "--filter '^rows10$' --benchmark_min_time=0.01 --max-time 0.1 --benchmark_repetitions=4";
  const auto run_dir = [&](int i) { return dir_.path() + "/j" + std::to_string(i); };
  ASSERT_EQ(run_opcert(bench_args(run_dir(0), "paced.softmax.jittery", flags)).exit_code, 0);
  for (int i = 0; i < 20; ++i) {
    const std::string a = run_dir(i), b = run_dir(i + 1);
    ASSERT_EQ(run_opcert(bench_args(b, "paced.softmax.jittery", flags)).exit_code, 0);
    const auto c = run_opcert("compare " + a + " " + b);
    ASSERT_EQ(c.exit_code, 0) << "comparison " << i << "\n" << c.out << c.err;
    EXPECT_NE(c.out.find("unchanged"), std::string::npos) << c.out;
  }
}

TEST_F(CompareEndToEnd, BaselineGatesTheBenchItself) {
  const auto same = run_opcert(steady(dir_.path() + "/same", "--baseline " + base_));
  EXPECT_EQ(same.exit_code, 0) << same.out << same.err;
  EXPECT_NE(same.out.find("no gate failed"), std::string::npos) << same.out;
  EXPECT_TRUE(fs::exists(dir_.path() + "/same/comparison.json"));
  const auto slower = run_opcert(steady(dir_.path() + "/slower", "--baseline " + base_), "OPCERT_TEST_PACED_SLOWER_ROWS=20");
  EXPECT_EQ(slower.exit_code, 1) << slower.out << slower.err;
  EXPECT_EQ(failures_of(read_json(dir_.path() + "/slower/comparison.json")),
            (std::set<std::string>{"perf rows20 paced.softmax.steady"}));
  // A looser gate lets the same slowdown through.
  const auto looser = run_opcert(steady(dir_.path() + "/looser", "--baseline " + base_ + " --max-slowdown 25%"),
                                 "OPCERT_TEST_PACED_SLOWER_ROWS=20");
  EXPECT_EQ(looser.exit_code, 0) << looser.out << looser.err;
}

TEST_F(CompareEndToEnd, TwoBenchesAtTheirDefaultRepetitionsGateEachOther) {
  // No --benchmark_repetitions: bench's default of five, so the perf gate can judge every row.
  const std::string first = dir_.path() + "/default1", second = dir_.path() + "/default2";
  const auto a = run_opcert(bench_args(first, "paced.softmax.steady", "--benchmark_min_time=0.02"));
  ASSERT_EQ(a.exit_code, 0) << a.out << a.err;
  EXPECT_EQ(read_json(first + "/report.json").at("benchmarks")[0].at("repetitions").size(), 5u);
  const auto b = run_opcert(bench_args(second, "paced.softmax.steady",
                                       "--benchmark_min_time=0.02 --baseline " + first + " --max-slowdown 10"),
                            "OPCERT_TEST_PACED_SLOWER_ROWS=20");
  EXPECT_EQ(b.exit_code, 1) << b.out << b.err;
  EXPECT_EQ(failures_of(read_json(second + "/comparison.json")), (std::set<std::string>{"perf rows20 paced.softmax.steady"}));
}

TEST_F(CompareEndToEnd, AHostBoundRowIsNamedAsSuch) {
  const std::string first = dir_.path() + "/host1", second = dir_.path() + "/host2";
  for (const std::string& out : {first, second})
    ASSERT_EQ(run_opcert(bench_args(out, "paced.softmax.hostbound", "--filter '^rows10$' --benchmark_min_time=0.02")).exit_code, 0);
  const auto c = run_opcert("compare " + first + " " + second + " --json " + dir_.path() + "/host.json");
  EXPECT_EQ(c.exit_code, 0) << c.out << c.err;
  EXPECT_NE(c.out.find("note: 1 row(s) were host-bound in a run"), std::string::npos) << c.out;
  const json doc = read_json(dir_.path() + "/host.json");
  ASSERT_EQ(doc.at("timings").size(), 1u);
  EXPECT_NE(doc.at("timings")[0].at("note").get<std::string>().find("host-bound in both runs"), std::string::npos)
      << doc.dump(2);
}

TEST_F(CompareEndToEnd, ABaselineGateWithNoRowItCanTestIsAUsageErrorAndKeepsTheRun) {
  // One repetition against the base's five: no row can reach p < 0.05, so --max-slowdown would pass anything.
  const std::string once = dir_.path() + "/once";
  const auto r = run_opcert(bench_args(once, "paced.softmax.steady",
                                       "--benchmark_min_time=0.02 --benchmark_repetitions=1 --baseline " + base_ +
                                           " --max-slowdown 10"));
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("--baseline: "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("can be rank-tested (5 and 1 repetitions"), std::string::npos) << r.err;
  EXPECT_TRUE(fs::exists(once + "/report.json")) << "what was measured is kept";
  // Without the flag, the default perf gate is left off and says so; the run passes.
  const auto quiet = run_opcert("compare " + base_ + " " + once);
  EXPECT_EQ(quiet.exit_code, 0) << quiet.out << quiet.err;
  EXPECT_NE(quiet.out.find("the perf gate was left off"), std::string::npos) << quiet.out;
  EXPECT_NE(quiet.out.find("no gate failed (alignment, status)"), std::string::npos) << quiet.out;
}

TEST_F(CompareEndToEnd, BaselineGatesARunToo) {
  const std::string run_args = std::string("run --plugin ") + TEST_PACED_PLUGIN + " --backend paced --no-peer --suite " +
                               PACED_SUITE + " --impl paced.softmax.steady --progress plain --out ";
  ASSERT_EQ(run_opcert(run_args + dir_.path() + "/run-base").exit_code, 0);
  const auto same = run_opcert(run_args + dir_.path() + "/run-same --baseline " + dir_.path() + "/run-base");
  EXPECT_EQ(same.exit_code, 0) << same.out << same.err;
  // The wrong case fails the run by itself (1); the comparison beside it names the regression.
  const auto wrong = run_opcert(run_args + dir_.path() + "/run-wrong --baseline " + dir_.path() + "/run-base",
                                "OPCERT_TEST_PACED_WRONG_ROWS=30");
  EXPECT_EQ(wrong.exit_code, 1) << wrong.out << wrong.err;
  EXPECT_EQ(failures_of(read_json(dir_.path() + "/run-wrong/comparison.json")),
            (std::set<std::string>{"status rows30 paced.softmax.steady"}));
}

TEST_F(CompareEndToEnd, CollectiveSweepsCompareTheirBusBandwidth) {
  const std::string sweep =
      "bench --backend cpu --no-peer --suite bench/collectives --filter '^all_reduce' --min-bytes 1K --max-bytes 4K "
      "--iters 3 --warmup 1 --out ";
  ASSERT_EQ(run_opcert(sweep + dir_.path() + "/c1").exit_code, 0);
  ASSERT_EQ(run_opcert(sweep + dir_.path() + "/c2").exit_code, 0);
  const auto c = run_opcert("compare " + dir_.path() + "/c1 " + dir_.path() + "/c2 --json " + dir_.path() + "/cc.json");
  EXPECT_EQ(c.exit_code, 0) << "one timing per size: shown, never gated\n" << c.out << c.err;
  const json doc = read_json(dir_.path() + "/cc.json");
  ASSERT_FALSE(doc.at("timings").empty());
  for (const auto& t : doc.at("timings")) {
    EXPECT_TRUE(t.at("new_busbw_gbps").is_number()) << t.dump();
    EXPECT_EQ(t.at("verdict"), "untestable") << t.dump();
  }
  EXPECT_NE(c.out.find("busbw"), std::string::npos) << c.out;
}

TEST_F(CompareEndToEnd, APlatformConfigKeepsTheGates) {
  const std::string config = dir_.path() + "/paced.json";
  std::ofstream(config) << R"({"name": "paced-ci", "backend": "paced", "gates": {"max_slowdown_pct": 25, "fail_on": ["perf"]}})";
  ASSERT_EQ(run_opcert(steady(regressed_), kRegression).exit_code, 1);
  const auto c = run_opcert("compare " + base_ + " " + regressed_ + " --platform-config " + config + " --platform paced-ci");
  EXPECT_EQ(c.exit_code, 0) << "20% is under the platform's 25%, and status is not gated there\n" << c.out << c.err;
  const auto flag = run_opcert("compare " + base_ + " " + regressed_ + " --platform-config " + config +
                               " --platform paced-ci --max-slowdown 10");
  EXPECT_EQ(flag.exit_code, 1) << "the flag overrides the platform\n" << flag.out;
}

TEST_F(CompareEndToEnd, TwoImplementationsOfOneRunSideBySide) {
  const std::string both = dir_.path() + "/both";
  ASSERT_EQ(run_opcert(bench_args(both, "'paced.*'", "--benchmark_min_time=0.01 --max-time 0.2")).exit_code, 0);
  const auto c = run_opcert("compare " + both + " --impl paced.softmax.steady,paced.softmax.jittery --json " + both + "/c.json");
  EXPECT_EQ(c.exit_code, 0) << c.out << c.err;
  const json doc = read_json(both + "/c.json");
  EXPECT_EQ(doc.at("mode"), "backends");
  ASSERT_EQ(doc.at("pairs").size(), 3u);
  ASSERT_EQ(doc.at("pair_summaries").size(), 1u);
  EXPECT_NEAR(doc.at("pair_summaries")[0].at("geomean_time_ratio").get<double>(), 1.0, 0.05);
}

TEST_F(CompareEndToEnd, UnusableInputIsAOneLineUsageError) {
  const std::string other_seed = dir_.path() + "/seed2";
  ASSERT_EQ(run_opcert(steady(other_seed, "--seed 2")).exit_code, 0);
  for (const std::string& args :
       {"compare " + base_, "compare " + base_ + " /nonexistent/run", "compare " + base_ + " " + base_ + " --fail-on speed",
        "compare " + base_ + " " + other_seed, "compare " + base_ + " --backends paced",
        "compare " + base_ + " --backends paced,nvidia", steady(dir_.path() + "/x", "--fail-on perf"),
        steady(dir_.path() + "/y", "--baseline /nonexistent/run")}) {
    const auto r = run_opcert(args);
    EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.out << r.err;
    EXPECT_NE(r.err.find("opcert: error:"), std::string::npos) << args << "\n" << r.err;
  }
}

// Exactly one line, on stderr, naming what is wrong.
void expect_one_line_error(const CommandResult& r, const std::string& args, const std::vector<std::string>& named) {
  EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.out << r.err;
  EXPECT_TRUE(r.err.starts_with("opcert: error:")) << args << "\n" << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << args << "\n" << r.err;
  for (const auto& n : named) EXPECT_NE(r.err.find(n), std::string::npos) << n << "\n" << r.err;
}

std::string paced_run(const std::string& suite, const std::string& out) {
  return std::string("run --plugin ") + TEST_PACED_PLUGIN + " --backend paced --no-peer --suite " + suite +
         " --impl paced.softmax.steady --progress plain --out " + out;
}

TEST_F(CompareEndToEnd, RunsWithNoCaseInCommonAreAUsageError) {
  const std::string other = dir_.write("other_suite.json", R"({"suite_format": "1.0", "cases": [
      {"op": "softmax", "id": "rows40", "params": {"dtype": "fp32", "rows": 40, "n": 16}}]})");
  const std::string a = dir_.path() + "/suite-a", b = dir_.path() + "/suite-b";
  ASSERT_EQ(run_opcert(paced_run(PACED_SUITE, a)).exit_code, 0);
  ASSERT_EQ(run_opcert(paced_run(other, b)).exit_code, 0);
  for (const auto& [base, now] : {std::pair{a, b}, std::pair{base_, b}}) {
    const std::string args = "compare " + base + " " + now;
    const auto r = run_opcert(args);
    expect_one_line_error(r, args, {"no case in common", "(suite " + std::string(PACED_SUITE) + ")", "(suite " + other + ")"});
    EXPECT_EQ(r.out.find("REGRESSED"), std::string::npos) << r.out;
  }
}

TEST_F(CompareEndToEnd, ARunAgainstABenchDoesNotPassItsTimings) {
  const std::string run = dir_.path() + "/plain-run";
  ASSERT_EQ(run_opcert(paced_run(PACED_SUITE, run)).exit_code, 0);
  // The perf gate only on by default: the comparison says no timing was compared and leaves it off.
  for (const auto& [base, now] : {std::pair{base_, run}, std::pair{run, base_}}) {
    const auto c = run_opcert("compare " + base + " " + now);
    EXPECT_EQ(c.exit_code, 0) << "the statuses agree\n" << c.out << c.err;
    EXPECT_NE(c.out.find("no timing was compared, and the perf gate was left off"), std::string::npos) << c.out;
    EXPECT_NE(c.out.find("no gate failed (alignment, status)"), std::string::npos) << c.out;
  }
  // Asked for, a timing gate with no timings on a side is unusable input.
  for (const std::string& gate : {std::string("--max-slowdown 10"), std::string("--fail-on perf")}) {
    const std::string args = "compare " + base_ + " " + run + " " + gate;
    expect_one_line_error(run_opcert(args), args, {"'" + run + "' (a run) has 0 benchmark row(s)", "perf gate"});
  }
  const std::string args = "compare " + base_ + " " + run + " --min-peer-ratio 0.5";
  expect_one_line_error(run_opcert(args), args, {"--min-peer-ratio has no timings"});
}

TEST_F(CompareEndToEnd, GoogleBenchmarksOwnCompareReadsBenchJson) {
  const char* tool = "/usr/share/benchmark/compare.py";
  if (!fs::exists(tool)) GTEST_SKIP() << "no " << tool << ": apt-get install libbenchmark-tools";
  if (std::system("/usr/bin/python3 -c 'import scipy' 2>/dev/null") != 0)
    GTEST_SKIP() << "compare.py needs scipy: apt-get install python3-scipy";
  ASSERT_EQ(run_opcert(steady(regressed_), "OPCERT_TEST_PACED_SLOWER_ROWS=20").exit_code, 0);
  const std::string cmd = std::string("/usr/bin/python3 ") + tool + " benchmarks " + base_ + "/bench.json " + regressed_ +
                          "/bench.json 2>&1";
  std::string out;
  FILE* p = popen(cmd.c_str(), "r");
  ASSERT_NE(p, nullptr);
  char buf[4096];
  while (std::fgets(buf, sizeof buf, p)) out += buf;
  EXPECT_EQ(pclose(p), 0) << out;
  // Its statistics ran (the U test over the five repetitions) and saw the 20% on rows20.
  EXPECT_NE(out.find("rows20/paced.softmax.steady"), std::string::npos) << out;
  EXPECT_NE(out.find("+0.2000"), std::string::npos) << out;
  EXPECT_NE(out.find("_pvalue"), std::string::npos) << out;
}

}  // namespace
}  // namespace opcert::test
