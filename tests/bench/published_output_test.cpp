// A backend that publishes its results after timing (ABI 1.1, the deferred test plugin): `opcert
// run` and `opcert bench` must publish before they read the outputs (else the check reads the NaNs
// the plugin leaves there and fails), the bench record must say how many bytes were published
// outside the timed region and which library call was timed, and `opcert list --suite` must name
// that call per case.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <map>

#include "bench/report_files.h"
#include "cli/run_opcert.h"

namespace opcert::test {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

std::string plugin_args(const std::string& verb, const std::string& out) {
  return verb + " --plugin " + TEST_DEFERRED_PLUGIN + " --backend deferred --no-peer --suite " + TIMED_SUITE +
         " --filter '^sleep20$' --out " + out;
}

TEST(PublishedOutputs, RunPublishesBeforeTheCheckReadsTheOutputs) {
  TempDir dir;
  const auto r = run_opcert(plugin_args("run", dir.path() + "/out"));
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const json report = read_json(fs::path(dir.path()) / "out" / "report.json");
  ASSERT_EQ(report.at("results").size(), 1u);
  EXPECT_EQ(report.at("results")[0].at("status"), "PASSED") << report.at("results")[0].dump(2);
}

TEST(PublishedOutputs, BenchRecordsTheBytesPublishedAfterTimingAndTheLibraryCall) {
  TempDir dir;
  const std::string out = dir.path() + "/out";
  const auto r = run_opcert(plugin_args("bench", out) + " --benchmark_min_time=0.01 --max-time 1");
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const json report = read_json(fs::path(out) / "report.json");
  ASSERT_EQ(report.at("benchmarks").size(), 1u);
  const json& rec = report.at("benchmarks")[0];
  EXPECT_EQ(rec.at("check"), "PASSED");
  EXPECT_EQ(rec.at("published_after_timing_bytes"), 20 * 16 * 4);  // y, fp32 [20, 16]
  EXPECT_EQ(rec.at("library_call"), "deferred_softmax(x) into a buffer of its own");
  const std::string problems = schema_problems(REPORT_SCHEMA, fs::path(out) / "report.json");
  if (problems != "skip") {
    EXPECT_EQ(problems, "");
  }
}

// A library that refuses at run time the call it listed, and falls back: the record names the call
// that was timed, the fallback, not the first choice that query_op named before the run.
TEST(PublishedOutputs, BenchRecordsTheCallThatRanWhenTheFirstChoiceFellBack) {
  TempDir dir;
  const std::string out = dir.path() + "/out";
  const auto r = run_opcert(plugin_args("bench", out) + " --benchmark_min_time=0.01 --max-time 1",
                            "OPCERT_TEST_DEFERRED_FALLBACK=1");
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const json report = read_json(fs::path(out) / "report.json");
  ASSERT_EQ(report.at("benchmarks").size(), 1u);
  EXPECT_EQ(report.at("benchmarks")[0].at("library_call"), "host_softmax(x), deferred_softmax having refused it");
}

TEST(PublishedOutputs, ListNamesTheLibraryCallPerCaseAndTheReasonOfADecline) {
  const auto r = run_opcert(std::string("list --plugin ") + TEST_DEFERRED_PLUGIN + " --backend deferred --suite " +
                            TIMED_SUITE + " --json");
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const json doc = json::parse(r.out);
  ASSERT_EQ(doc.at("cases").size(), 3u);
  std::map<std::string, json> by_id;
  for (const auto& c : doc.at("cases")) by_id[c.at("id")] = c;
  const json& sleep = by_id.at("sleep20").at("implementations").at(0);
  EXPECT_EQ(sleep.at("impl_key"), "deferred.softmax.pending");
  EXPECT_EQ(sleep.at("supported"), true);
  EXPECT_EQ(sleep.at("library_call"), "deferred_softmax(x) into a buffer of its own");
  EXPECT_EQ(by_id.at("sleep20").at("inputs").at(0).at("shape"), json::array({20, 16}));
  const json& bf16 = by_id.at("unsupported_bf16").at("implementations").at(0);
  EXPECT_EQ(bf16.at("supported"), false);
  EXPECT_EQ(bf16.at("reason"), "deferred softmax supports only fp32");

  const auto text = run_opcert(std::string("list --plugin ") + TEST_DEFERRED_PLUGIN + " --backend deferred --suite " +
                               TIMED_SUITE + " --filter sleep");
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("deferred.softmax.pending"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("deferred_softmax(x) into a buffer of its own"), std::string::npos) << text.out;
}

TEST(PublishedOutputs, ListFilterWithoutSuiteIsBadUsage) {
  const auto r = run_opcert("list --filter sleep");
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("--filter without --suite"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace opcert::test
