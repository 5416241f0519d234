// `opcert bench` end to end, as a user runs it, against the timed test plugin (an fp32 softmax that
// sleeps dim 0 milliseconds, with events; wrong when the last dimension is 7) and the CPU backend.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "bench/report_files.h"
#include "cli/run_opcert.h"

namespace opcert::test {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

std::string timed_args(const std::string& out, const std::string& filter) {
  return std::string("bench --plugin ") + TEST_TIMED_PLUGIN + " --backend timed --no-peer --suite " + TIMED_SUITE +
         " --out " + out + " --filter '" + filter + "' --benchmark_min_time=0.1 --max-time 1";
}

const json* find_benchmark(const json& bench, const std::string& prefix) {
  for (const auto& b : bench.at("benchmarks"))
    if (b.at("name").get<std::string>().rfind(prefix, 0) == 0) return &b;
  return nullptr;
}

TEST(BenchEndToEnd, AnOpOfKnownTimeIsMeasuredWithEvents) {
  TempDir dir;
  const std::string out = dir.path() + "/out";
  // --cold-l2 copies twice the host's last-level cache before each sample: that must stay out of
  // the measured time.
  const auto r = run_opcert(timed_args(out, "^sleep20$") + " --cold-l2");
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;

  // bench.json is Google Benchmark's JSON: what its compare tool reads (context + benchmarks
  // with name, run_type, iterations, real_time, cpu_time, time_unit).
  const json bench = read_json(fs::path(out) / "bench.json");
  ASSERT_TRUE(bench.contains("context"));
  const json* b = find_benchmark(bench, "sleep20/timed.softmax.sleep");
  ASSERT_NE(b, nullptr) << bench.dump(2);
  for (const char* key : {"run_type", "iterations", "real_time", "cpu_time", "time_unit"}) EXPECT_TRUE(b->contains(key)) << key;
  ASSERT_EQ(b->at("time_unit"), "us");
  const double us = b->at("real_time").get<double>();
  // The op sleeps 20 ms: a sleep never ends early, and a loaded 2-core machine may add a little.
  EXPECT_GE(us, 19900.0);
  EXPECT_LE(us, 30000.0);
  EXPECT_EQ(b->at("label"), "PASSED");

  const json report = read_json(fs::path(out) / "report.json");
  EXPECT_EQ(report.at("kind"), "opcert-bench-report");
  ASSERT_EQ(report.at("benchmarks").size(), 1u);
  const json& rec = report.at("benchmarks")[0];
  EXPECT_EQ(rec.at("timing"), "events");
  EXPECT_EQ(rec.at("check"), "PASSED");
  // The row's time is the median of its repetitions (five by default): bench.json's median aggregate.
  const json* median = nullptr;
  for (const auto& run : bench.at("benchmarks"))
    if (run.value("aggregate_name", "") == "median") median = &run;
  ASSERT_NE(median, nullptr) << bench.dump(2);
  EXPECT_NEAR(rec.at("seconds").get<double>(), median->at("real_time").get<double>() / 1e6, 1e-9);
  EXPECT_EQ(rec.at("bytes").get<double>(), 2.0 * 20 * 16 * 4);  // x read, y written
  EXPECT_TRUE(report.at("environment").is_object());
  EXPECT_EQ(report.at("bench_settings").at("cold_l2"), true);
  const std::string problems = schema_problems(REPORT_SCHEMA, fs::path(out) / "report.json");
  if (problems != "skip") {
    EXPECT_EQ(problems, "");
  }

  // The table: one row, its time, its check.
  EXPECT_NE(r.out.find("timed.softmax.sleep"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(" ms "), std::string::npos) << r.out;
}

TEST(BenchEndToEnd, AFastWrongOpIsFlaggedNotCelebrated) {
  TempDir dir;
  const std::string out = dir.path() + "/out";
  const auto r = run_opcert(timed_args(out, "^wrong$"));
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("FAILED"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("not to be trusted"), std::string::npos) << r.out;
  const json report = read_json(fs::path(out) / "report.json");
  EXPECT_EQ(report.at("benchmarks")[0].at("check"), "FAILED");
  EXPECT_EQ(report.at("exit_code"), 1);
  const json bench = read_json(fs::path(out) / "bench.json");
  EXPECT_EQ(find_benchmark(bench, "wrong/")->at("label"), "FAILED");
}

TEST(BenchEndToEnd, AnUnsupportedCaseIsReportedNotTimed) {
  TempDir dir;
  const std::string out = dir.path() + "/out";
  const auto r = run_opcert(timed_args(out, "sleep20|unsupported"));
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("not benchmarked: unsupported_bf16 on timed.softmax.sleep: SKIPPED"), std::string::npos) << r.out;
  const json report = read_json(fs::path(out) / "report.json");
  EXPECT_EQ(report.at("benchmarks").size(), 1u);
  bool skipped = false;
  for (const auto& res : report.at("results")) skipped |= res.at("case") == "unsupported_bf16" && res.at("status") == "SKIPPED";
  EXPECT_TRUE(skipped) << report.at("results").dump(2);
}

TEST(BenchEndToEnd, RepetitionsGiveAggregatesAndASpread) {
  TempDir dir;
  const std::string out = dir.path() + "/out";
  const auto r = run_opcert(timed_args(out, "^sleep20$") + " --benchmark_repetitions=3");
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const json rec = read_json(fs::path(out) / "report.json").at("benchmarks")[0];
  EXPECT_EQ(rec.at("repetitions").size(), 3u);
  EXPECT_TRUE(rec.at("aggregates").contains("median"));
  EXPECT_TRUE(rec.at("spread").is_number());
  EXPECT_NE(r.out.find("±"), std::string::npos) << r.out;
  // One row and one measurements line per benchmark, although Google Benchmark reports it twice
  // (its repetitions, then their aggregates).
  std::size_t rows = 0;
  for (std::size_t at = r.out.find("timed.softmax.sleep"); at != std::string::npos;
       at = r.out.find("timed.softmax.sleep", at + 1))
    ++rows;
  EXPECT_EQ(rows, 1u) << r.out;
  std::ifstream lines(fs::path(out) / "measurements.jsonl");
  std::size_t count = 0;
  for (std::string line; std::getline(lines, line);) count += !line.empty();
  EXPECT_EQ(count, 1u);
}

TEST(BenchEndToEnd, TheCpuBackendIsTimedWithWallClockAndItsRooflineCountersAreThere) {
  TempDir dir;
  const std::string out = dir.path() + "/out";
  const auto r = run_opcert("bench --backend cpu --suite " + std::string(TIMED_SUITE) + " --out " + out +
                            " --filter '^sleep20$' --benchmark_min_time=0.05 --max-time 1");
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const json report = read_json(fs::path(out) / "report.json");
  bool cpu_seen = false;
  for (const auto& rec : report.at("benchmarks")) {
    if (rec.at("backend") != "cpu") continue;
    cpu_seen = true;
    EXPECT_EQ(rec.at("timing"), "wall");
    EXPECT_GT(rec.at("gbps").get<double>(), 0.0);
    // With the peer (torch by default) built in, it is timed on the same case, the report names
    // it, and the speedup is there.
    if (report.at("backends").size() > 1) {
      EXPECT_EQ(report.at("peer"), "torch");
      EXPECT_TRUE(rec.at("speedup_vs_peer").is_number()) << rec.dump(2);
    }
  }
  EXPECT_TRUE(cpu_seen) << report.dump(2);
}

TEST(BenchEndToEnd, ACopyBaselineGivesMemoryBoundRowsTheirPercentOfCopy) {
  TempDir dir;
  const std::string out = dir.path() + "/out";
  const auto r = run_opcert(timed_args(out, "^sleep20$") + " --copy-baseline");
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("% copy"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("timed.copy"), std::string::npos) << r.out;

  const json report = read_json(fs::path(out) / "report.json");
  EXPECT_EQ(report.at("bench_settings").at("copy_baseline"), true);
  const json* copy = nullptr;
  const json* op = nullptr;
  for (const auto& rec : report.at("benchmarks")) (rec.at("copy_baseline").get<bool>() ? copy : op) = &rec;
  ASSERT_NE(copy, nullptr) << report.dump(2);
  ASSERT_NE(op, nullptr) << report.dump(2);
  // The baseline moves the case's bytes and is never checked; the op (a 20 ms sleep over a few
  // bytes) is far slower than copying them.
  EXPECT_EQ(copy->at("impl_key"), "timed.copy");
  EXPECT_TRUE(copy->at("check").is_null());
  // Its copy is synchronous (each waits), so the host's share of its time says nothing: none kept.
  EXPECT_EQ(copy->at("host_bound"), false);
  for (const auto& rep : copy->at("repetitions")) EXPECT_TRUE(rep.at("host_share").is_null()) << rep.dump();
  EXPECT_EQ(copy->at("bytes"), op->at("bytes"));
  EXPECT_GT(copy->at("seconds").get<double>(), 0.0);
  ASSERT_TRUE(op->at("pct_of_copy").is_number()) << op->dump(2);
  const double pct = op->at("pct_of_copy").get<double>();
  EXPECT_GT(pct, 0.0);
  EXPECT_LT(pct, 5.0);
  EXPECT_NEAR(pct, 100.0 * copy->at("seconds").get<double>() / op->at("seconds").get<double>(), 1e-6 * pct);
  const std::string problems = schema_problems(REPORT_SCHEMA, fs::path(out) / "report.json");
  if (problems != "skip") {
    EXPECT_EQ(problems, "") << problems;
  }
}

// The backend and its peer share a big case's inputs and reference (session/execution/input_cache.h,
// one case at a time in a lane's folder): the peer's worker, first on the case, makes and writes
// them, the backend's reads them, and the backend's check is the one it gets alone (every metric
// equal); a small case is made by each worker.
TEST(BenchEndToEnd, TheBackendReadsABigCasesInputsAndReferenceThatItsPeerMade) {
  TempDir dir;
  const std::string suite = dir.path() + "/suite.json";
  std::ofstream(suite) << R"({"suite_format": "1.0", "description": "A big case and a small one.", "cases": [
      {"op": "softmax", "id": "softmax.big", "params": {"shape": [2, 8388608], "dtype": "fp32"}},
      {"op": "softmax", "id": "softmax.small", "params": {"shape": [4, 64], "dtype": "fp32"}}]})";
  const auto bench = [&](const std::string& name, const std::string& peer) {
    const std::string out = dir.path() + "/" + name;
    const auto r = run_opcert("bench --backend cpu " + peer + " --suite " + suite + " --out " + out +
                              " --benchmark_min_time=2x --max-noise 0");
    EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
    std::map<std::string, json> checks;
    const json report = read_json(fs::path(out) / "report.json");
    for (const auto& rec : report.at("results"))
      if (rec.at("backend") == "cpu") checks[rec.at("case").get<std::string>()] = rec;
    return checks;
  };
  const auto shared = bench("shared", "");
  const json report = read_json(fs::path(dir.path()) / "shared" / "report.json");
  if (report.at("backends").size() < 2) GTEST_SKIP() << "no peer built in: nothing to share with";
  const auto alone = bench("alone", "--no-peer");
  ASSERT_EQ(shared.size(), 2u) << report.dump(2);
  ASSERT_EQ(alone.size(), 2u);
  for (const auto& [id, rec] : alone) {
    EXPECT_EQ(shared.at(id).at("status"), "PASSED") << shared.at(id).dump();
    EXPECT_EQ(shared.at(id).at("metrics"), rec.at("metrics")) << id;
  }
  std::string peer_log, own_log;
  for (const auto& entry : fs::directory_iterator(fs::path(dir.path()) / "shared" / "logs"))
    (entry.path().filename().string().rfind("cpu.", 0) == 0 ? own_log : peer_log) += read_text(entry.path());
  EXPECT_NE(peer_log.find("case 'softmax.big': inputs shared in the run's cache"), std::string::npos) << peer_log;
  EXPECT_NE(peer_log.find("case 'softmax.big': reference shared in the run's cache"), std::string::npos) << peer_log;
  EXPECT_NE(own_log.find("case 'softmax.big': inputs read from the run's cache"), std::string::npos) << own_log;
  EXPECT_NE(own_log.find("case 'softmax.big': reference read from the run's cache"), std::string::npos) << own_log;
  EXPECT_EQ((peer_log + own_log).find("softmax.small': inputs"), std::string::npos) << "too small to share";
}

TEST(BenchEndToEnd, FlagsOpcertOwnsOrDoesNotKnowAreOneLineErrors) {
  for (const std::string extra : {"--benchmark_out=/tmp/x.json", "--benchmark_format=csv", "--bogus",
                                  "--benchmark_no_such_flag=1"}) {
    TempDir dir;
    const auto r = run_opcert(timed_args(dir.path() + "/out", "^sleep20$") + " " + extra);
    EXPECT_EQ(r.exit_code, 2) << extra << ": " << r.out << r.err;
    EXPECT_NE(r.err.find("opcert: error:"), std::string::npos) << extra << ": " << r.err;
  }
}

}  // namespace
}  // namespace opcert::test
