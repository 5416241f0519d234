// `opcert bench` times each backend in its own worker process, as `opcert run` runs it: the crashy
// test plugin segfaults, hangs, aborts or exits in chosen cases (tests/plugins/test_crashy.cpp),
// or segfaults in query_op, and those rows alone are CRASHED or TIMEOUT with the reason while every
// other row is measured.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <map>
#include <string>

#include "bench/report_files.h"
#include "cli/run_opcert.h"

namespace opcert::test {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

std::string crashy_bench(const std::string& suite, const std::string& out) {
  // A fixed count of launches: the rows that live are measured without waiting on their noise.
  return std::string("bench --plugin ") + TEST_CRASHY_PLUGIN + " --backend crashy --no-peer --suite " + suite +
         " --out " + out + " --benchmark_min_time=20x --timeout 2";
}

// Each benchmark of the report by case: its check and whether it was timed.
std::map<std::string, const json*> by_case(const json& report) {
  std::map<std::string, const json*> rows;
  for (const auto& b : report.at("benchmarks")) rows[b.at("case_id").get<std::string>()] = &b;
  return rows;
}

TEST(BenchWorkerIsolation, ASegfaultAndAHangCostTheirRowsAloneAndTheRestIsMeasured) {
  TempDir dir;
  const std::string out = dir.path() + "/out";
  const auto r = run_opcert(crashy_bench(CRASHY_SUITE, out));
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;  // a selected backend's rows failed

  const json report = read_json(fs::path(out) / "report.json");
  EXPECT_EQ(report.at("exit_code"), 1);
  const auto rows = by_case(report);
  ASSERT_EQ(rows.size(), 5u) << report.at("benchmarks").dump(2);  // d4.fp16 is unsupported: not a row
  for (const char* alive : {"softmax.d2", "softmax.d4", "softmax.d6"}) {
    const json& row = *rows.at(alive);
    EXPECT_EQ(row.at("check"), "PASSED") << alive;
    EXPECT_TRUE(row.at("seconds").is_number()) << alive << ": " << row.dump(2);
    EXPECT_EQ(row.at("timing"), "wall") << alive;
    EXPECT_EQ(row.at("repetitions").at(0).at("samples"), 20) << alive;
  }
  const json& crashed = *rows.at("softmax.d3");
  EXPECT_EQ(crashed.at("check"), "CRASHED");
  EXPECT_EQ(crashed.at("error"), "worker died with SIGSEGV during the case; see logs/crashy.worker.log");
  EXPECT_TRUE(crashed.at("seconds").is_null());
  const json& hung = *rows.at("softmax.d5");
  EXPECT_EQ(hung.at("check"), "TIMEOUT");
  EXPECT_NE(hung.at("error").get<std::string>().find("the worker was killed and restarted"), std::string::npos)
      << hung.dump(2);
  EXPECT_TRUE(hung.at("seconds").is_null());

  // The checks stream as run's results do, the skip included.
  std::map<std::string, std::string> statuses;
  for (const auto& res : report.at("results")) statuses[res.at("case")] = res.at("status");
  const std::map<std::string, std::string> expected{{"softmax.d2", "PASSED"},  {"softmax.d3", "CRASHED"},
                                                    {"softmax.d4", "PASSED"},  {"softmax.d5", "TIMEOUT"},
                                                    {"softmax.d6", "PASSED"},  {"softmax.d4.fp16", "SKIPPED"}};
  EXPECT_EQ(statuses, expected);

  // The table names the status and the reason; the note says where the worker's stderr went.
  EXPECT_NE(r.out.find("CRASHED: worker died with SIGSEGV"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("TIMEOUT: no result within"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("the worker was started 3 times"), std::string::npos) << r.err;
  EXPECT_TRUE(fs::is_regular_file(fs::path(out) / "logs/crashy.worker.log"));
  const std::string problems = schema_problems(REPORT_SCHEMA, fs::path(out) / "report.json");
  if (problems != "skip") {
    EXPECT_EQ(problems, "");
  }
}

// A bench of `suite` on the crashy plugin in `dir`: what it said and wrote. Its rows fail: exit 1.
struct CrashyBench {
  CommandResult r;
  std::string out;
  json report;
};

CrashyBench bench_failing_rows(const TempDir& dir, const std::string& suite) {
  CrashyBench b;
  b.out = dir.path() + "/out";
  b.r = run_opcert(crashy_bench(suite, b.out));
  EXPECT_EQ(b.r.exit_code, 1) << b.r.out << b.r.err;
  b.report = read_json(fs::path(b.out) / "report.json");
  return b;
}

TEST(BenchWorkerIsolation, AnAbortAndAnExitAreCrashesAndAWrongRowIsStillTimed) {
  TempDir dir;
  const CrashyBench b = bench_failing_rows(dir, CRASHY_FAULTS_SUITE);
  const auto rows = by_case(b.report);  // pointers into b.report
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows.at("softmax.d7")->at("check"), "CRASHED");
  EXPECT_NE(rows.at("softmax.d7")->at("error").get<std::string>().find("SIGABRT"), std::string::npos);
  EXPECT_EQ(rows.at("softmax.d8")->at("check"), "CRASHED");
  EXPECT_NE(rows.at("softmax.d8")->at("error").get<std::string>().find("exit"), std::string::npos);
  // NaN outputs fail the check; the row is timed all the same, and flagged.
  EXPECT_EQ(rows.at("softmax.d9")->at("check"), "FAILED");
  EXPECT_TRUE(rows.at("softmax.d9")->at("seconds").is_number());
  EXPECT_EQ(rows.at("softmax.d2")->at("check"), "PASSED");
  EXPECT_TRUE(rows.at("softmax.d2")->at("seconds").is_number());
}

// The support query runs in the worker too: a plugin that segfaults in query_op for one case
// gives that case CRASHED (not a benchmark: nothing was timed) and the other cases are measured.
TEST(BenchWorkerIsolation, ASegfaultInQueryOpCostsItsCaseAlone) {
  TempDir dir;
  const CrashyBench b = bench_failing_rows(dir, CRASHY_QUERY_SUITE);
  const auto rows = by_case(b.report);
  ASSERT_EQ(rows.size(), 2u) << b.report.at("benchmarks").dump(2);
  for (const char* alive : {"softmax.d2", "softmax.d4"}) {
    EXPECT_EQ(rows.at(alive)->at("check"), "PASSED") << alive;
    EXPECT_TRUE(rows.at(alive)->at("seconds").is_number()) << alive;
  }
  std::map<std::string, json> results;
  for (const auto& res : b.report.at("results")) results[res.at("case")] = res;
  ASSERT_TRUE(results.contains("softmax.d11")) << b.report.at("results").dump(2);
  EXPECT_EQ(results.at("softmax.d11").at("status"), "CRASHED");
  EXPECT_NE(results.at("softmax.d11").at("message").get<std::string>().find("SIGSEGV"), std::string::npos)
      << results.at("softmax.d11").dump(2);
  EXPECT_NE(b.r.out.find("not benchmarked: softmax.d11 on crashy.softmax.segv: CRASHED"), std::string::npos) << b.r.out;
  EXPECT_EQ(read_jsonl(fs::path(b.out) / "measurements.jsonl").size(), 2u);
}

}  // namespace
}  // namespace opcert::test
