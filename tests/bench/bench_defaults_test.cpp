// What `opcert bench` times without --impl, end to end with the paced test plugin (three softmax
// implementations): with a platform config that names a production key, that key alone (and the
// peer), with one line saying so; `--impl all`, every implementation; without a platform config,
// every implementation, said too. And the pace of a bench on stderr once a few rows are done.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <set>

#include "bench/report_files.h"
#include "cli/run_opcert.h"

namespace opcert::test {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

constexpr const char* kPacedPlatform =
    R"({"name": "paced-box", "backend": "paced", "implementations": {"softmax": "paced.softmax.steady"}})";

struct Bench {
  CommandResult result;
  std::set<std::string> timed;  // the implementation keys of report.json's benchmarks
};

Bench bench(const std::string& extra) {
  TempDir dir;
  const std::string platform = dir.write("paced.json", kPacedPlatform);
  const std::string out = dir.path() + "/out";
  Bench b{run_opcert(std::string("bench --plugin ") + TEST_PACED_PLUGIN + " --backend paced --no-peer --suite " +
                     TIMED_SUITE + " --platform-config " + platform + " --out " + out +
                     " --benchmark_min_time=0.02 --max-time 0.5 " + extra),
          {}};
  if (b.result.exit_code != 0) return b;
  const json report = read_json(fs::path(out) / "report.json");  // kept: the loop reads into it
  for (const json& record : report.at("benchmarks")) b.timed.insert(record.at("impl_key").get<std::string>());
  return b;
}

TEST(BenchDefaults, APlatformWithProductionKeysTimesThoseKeysAlone) {
  const Bench b = bench("--filter '^sleep20$' --platform paced-box");
  ASSERT_EQ(b.result.exit_code, 0) << b.result.out << b.result.err;
  EXPECT_EQ(b.timed, std::set<std::string>{"paced.softmax.steady"});
  EXPECT_NE(b.result.err.find("the production keys of platform 'paced-box' for paced (paced.softmax.steady)"),
            std::string::npos)
      << b.result.err;
  EXPECT_NE(b.result.err.find("--impl all times every implementation"), std::string::npos) << b.result.err;
}

TEST(BenchDefaults, ImplAllTimesEveryImplementation) {
  const Bench b = bench("--filter '^sleep20$' --platform paced-box --impl all");
  ASSERT_EQ(b.result.exit_code, 0) << b.result.out << b.result.err;
  EXPECT_EQ(b.timed, (std::set<std::string>{"paced.softmax.hostbound", "paced.softmax.jittery", "paced.softmax.queued",
                                            "paced.softmax.steady"}));
  EXPECT_EQ(b.result.err.find("production keys"), std::string::npos) << b.result.err;
}

TEST(BenchDefaults, GlobsStillSelect) {
  const Bench b = bench("--filter '^sleep20$' --platform paced-box --impl '*.jittery'");
  ASSERT_EQ(b.result.exit_code, 0) << b.result.out << b.result.err;
  EXPECT_EQ(b.timed, std::set<std::string>{"paced.softmax.jittery"});
}

TEST(BenchDefaults, WithoutAPlatformEveryImplementationIsTimedAndTheLineSaysWhy) {
  const Bench b = bench("--filter '^sleep20$'");
  ASSERT_EQ(b.result.exit_code, 0) << b.result.out << b.result.err;
  EXPECT_EQ(b.timed, (std::set<std::string>{"paced.softmax.hostbound", "paced.softmax.jittery", "paced.softmax.queued",
                                            "paced.softmax.steady"}));
  EXPECT_NE(b.result.err.find("every implementation of paced (no platform config matches its device)"),
            std::string::npos)
      << b.result.err;
}

TEST(BenchDefaults, ThePaceIsOnStderrOnceAFewRowsAreDone) {
  const Bench b = bench("--impl all");  // sleep20 and wrong on all four: 8 rows
  ASSERT_EQ(b.result.exit_code, 0) << b.result.out << b.result.err;
  ASSERT_EQ(b.timed.size(), 4u);
  EXPECT_NE(b.result.err.find("opcert: 3/8 benchmarks in "), std::string::npos) << b.result.err;
  EXPECT_NE(b.result.err.find(", eta "), std::string::npos) << b.result.err;
  EXPECT_EQ(b.result.out.find("eta "), std::string::npos) << "the table stays as it was: " << b.result.out;
}

}  // namespace
}  // namespace opcert::test
