// `opcert bench` on collectives end to end, on the CPU backend as a single rank (no launcher):
// the sweep's rows, bench.json and report.json (valid against the schema), and the flags' errors.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <cstdio>
#include <filesystem>
#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>

#include "bench/report_files.h"
#include "cli/run_opcert.h"

namespace opcert::test {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

constexpr const char* kSweep =
    "bench --backend cpu --no-peer --suite bench/collectives --min-bytes 1K --max-bytes 64K --step-factor 4 --iters 3 "
    "--warmup 1 --timeout 30";

TEST(CollectiveBenchEndToEnd, SweepsTheSizesOnOneRankAndWritesTheOutputs) {
  TempDir dir;
  const std::string out = dir.path() + "/out";
  const auto r = run_opcert(std::string(kSweep) + " --filter '^all_reduce\\.sum\\.fp32' --out " + out);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.err.find("single rank"), std::string::npos) << "it says it runs as a single rank: " << r.err;
  EXPECT_NE(r.out.find("busbw"), std::string::npos) << r.out;

  const json bench = read_json(fs::path(out) / "bench.json");
  ASSERT_TRUE(bench.contains("context"));
  std::set<uint64_t> sizes;
  for (const auto& b : bench.at("benchmarks")) {
    for (const char* key : {"name", "run_type", "iterations", "real_time", "cpu_time", "time_unit", "busbw_gbps", "algbw_gbps"})
      EXPECT_TRUE(b.contains(key)) << key << " in " << b.dump();
    EXPECT_EQ(b.at("time_unit"), "us");
    EXPECT_GT(b.at("real_time").get<double>(), 0.0);
    EXPECT_EQ(b.at("label"), "PASSED");
    EXPECT_EQ(b.at("iterations"), 3);
    sizes.insert(b.at("bytes").get<uint64_t>());
  }
  EXPECT_EQ(sizes, (std::set<uint64_t>{1024, 4096, 16384, 65536}));
  EXPECT_EQ(bench.at("benchmarks").size(), 8u) << "4 sizes x (out of place, in place)";

  const json report = read_json(fs::path(out) / "report.json");
  EXPECT_EQ(report.at("kind"), "opcert-bench-report");
  EXPECT_EQ(report.at("ranks").at("count"), 1);
  EXPECT_EQ(report.at("exit_code"), 0);
  ASSERT_EQ(report.at("benchmarks").size(), 8u);
  const json& rec = report.at("benchmarks")[0];
  EXPECT_EQ(rec.at("check"), "PASSED");
  const json& c = rec.at("collective");
  EXPECT_EQ(c.at("size_bytes"), 1024);
  EXPECT_EQ(c.at("count"), 256);
  EXPECT_EQ(c.at("ranks"), 1);
  EXPECT_DOUBLE_EQ(c.at("bus_factor").get<double>(), 0.0);  // 2(n-1)/n on one rank
  EXPECT_EQ(report.at("bench_settings").at("collectives").at("iters"), 3);
  EXPECT_EQ(report.at("results").size(), 8u) << "one check per row and rank";
  if (const std::string problems = schema_problems(REPORT_SCHEMA, fs::path(out) / "report.json"); problems != "skip") {
    EXPECT_EQ(problems, "");
  }

  std::ifstream measurements(fs::path(out) / "measurements.jsonl");
  std::string line;
  int lines = 0;
  while (std::getline(measurements, line)) ++lines;
  EXPECT_EQ(lines, 8);
}

// Bad flags: one line naming the flag, exit 2, before anything runs.
void expect_usage_error(const std::string& args, const std::string& needle) {
  const auto r = run_opcert(args);
  EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.out << r.err;
  EXPECT_NE(r.err.find(needle), std::string::npos) << r.err;
  EXPECT_LE(std::count(r.err.begin(), r.err.end(), '\n'), 1) << "one line: " << r.err;
}

TEST(CollectiveBenchEndToEnd, BadFlagsAreUsageErrors) {
  TempDir dir;
  const std::string base = "bench --backend cpu --no-peer --suite bench/collectives --out " + dir.path() + "/out";
  expect_usage_error(base + " --min-bytes 2M --max-bytes 1M", "--min-bytes");
  expect_usage_error(base + " --max-bytes 12Q", "--max-bytes");
  expect_usage_error(base + " --step-factor 1", "--step-factor");
  expect_usage_error(base + " --iters 0", "--iters");
  expect_usage_error(base + " --warmup -1", "--warmup");
  expect_usage_error(base + " --timeout 0", "--timeout");
  expect_usage_error(base + " --benchmark_min_time=0.1", "--benchmark_min_time");
  // A filter that selects nothing says so, not that the sweep flags need a collective suite.
  expect_usage_error(base + " --filter '^no_such_case' --max-bytes 1M", "--filter '^no_such_case' matches none");
  expect_usage_error("bench --backend cpu --suite bench/smoke --iters 5 --out " + dir.path() + "/out", "--iters");
  EXPECT_FALSE(std::filesystem::exists(dir.path() + "/out/report.json")) << "nothing ran";
}

}  // namespace
}  // namespace opcert::test
