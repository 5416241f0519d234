// `opcert bench --devices` (docs/CLI.md "Devices"): the devices test plugin (three devices) timed
// against the CPU backend as the peer, split into two devices (OPCERT_CPU_DEVICES=2). spread times
// each case once, its peer on the same device; each times every case on every device; every row
// names its device; a device a backend or the peer lacks is bad usage before anything runs.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <map>
#include <set>
#include <string>

#include "bench/report_files.h"
#include "cli/run_opcert.h"

namespace opcert::test {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

constexpr const char* kTwoCpuDevices = "OPCERT_CPU_DEVICES=2";

std::string bench_args(const std::string& out) {
  return std::string("bench --plugin ") + TEST_DEVICES_PLUGIN + " --backend devices --peer cpu --suite " +
         DEVICES_SUITE + " --benchmark_min_time=0.01 --max-time 0.2 --out " + out;
}

// (case, device) -> the backends whose benchmarks were timed there, from measurements.jsonl; every
// record names its device, and each row's speedup is against the peer on its own device.
std::map<std::pair<std::string, int>, std::multiset<std::string>> rows_by_case_and_device(const fs::path& out) {
  std::map<std::pair<std::string, int>, std::multiset<std::string>> rows;
  for (const json& m : read_jsonl(out / "measurements.jsonl")) {
    EXPECT_TRUE(m.contains("device")) << m.dump();
    if (!m.contains("device")) continue;
    rows[{m.at("case_id"), m.at("device").at("index").get<int>()}].insert(m.at("backend").get<std::string>());
    if (m.at("backend") == "devices") {
      EXPECT_TRUE(m.at("speedup_vs_peer").is_number()) << m.dump();
    }
  }
  return rows;
}

class BenchDevices : public ::testing::Test {
 protected:
  // The bench with `flags` into `out`.
  CommandResult bench(const std::string& flags) { return run_opcert(bench_args(out.string()) + " " + flags, kTwoCpuDevices); }

  TempDir dir;
  const fs::path out = fs::path(dir.path()) / "out";
};

TEST_F(BenchDevices, SpreadTimesEachCaseOnceWithItsPeerOnTheSameDevice) {
  const auto r = bench("--devices all");
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;

  const auto rows = rows_by_case_and_device(out);
  std::map<std::string, int> devices_of_case;
  for (const auto& [place, impls] : rows) {
    ++devices_of_case[place.first];
    EXPECT_LT(place.second, 2) << "'all' is the devices both the backend and the peer have";
    // The case and its peer, each once, on one device.
    EXPECT_EQ(impls.size(), 2u) << place.first;
    EXPECT_EQ(impls.count("cpu"), 1u) << place.first << ": the peer's row is on the same device";
  }
  EXPECT_EQ(devices_of_case, (std::map<std::string, int>{{"softmax.d2", 1}, {"softmax.d4", 1}}))
      << "spread: every case timed once, on one device";

  // The checks, report.json and the table name the device too.
  for (const json& res : read_jsonl(out / "results.jsonl")) EXPECT_TRUE(res.contains("device")) << res.dump();
  const json report = read_json(out / "report.json");
  ASSERT_EQ(report.at("benchmarks").size(), 4u) << report.dump(2);
  for (const json& b : report.at("benchmarks")) EXPECT_TRUE(b.contains("device")) << b.dump();
  EXPECT_EQ(schema_problems(REPORT_SCHEMA, out / "report.json"), "");
  EXPECT_NE(r.out.find("device 0"), std::string::npos) << r.out;
}

TEST_F(BenchDevices, EachTimesEveryCaseOnEveryDeviceAgainstThatDevicesPeer) {
  const auto r = bench("--devices 0,1 --device-mode each");
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;

  const auto rows = rows_by_case_and_device(out);
  const std::multiset<std::string> both{"cpu", "devices"};
  for (const std::string c : {"softmax.d2", "softmax.d4"})
    for (const int d : {0, 1}) EXPECT_EQ(rows.count({c, d}) ? rows.at({c, d}) : std::multiset<std::string>{}, both) << c << " on " << d;
  EXPECT_EQ(rows.size(), 4u);

  // One worker per backend and device.
  for (const char* log : {"devices.device0.worker.log", "devices.device1.worker.log", "cpu.device1.worker.log"})
    EXPECT_TRUE(fs::is_regular_file(out / "logs" / log)) << log;
  for (const json& res : read_jsonl(out / "results.jsonl")) EXPECT_TRUE(res.contains("device")) << res.dump();
  EXPECT_NE(r.out.find("device 1"), std::string::npos) << "the table's device column: " << r.out;

  // Resumed, every case of every device is kept: nothing is timed again.
  const auto again = bench("--devices 0,1 --device-mode each --resume " + out.string());
  ASSERT_EQ(again.exit_code, 0) << again.out << again.err;
  EXPECT_NE(again.err.find("4 case(s) measured whole kept (8 benchmark(s)), 0 benchmark(s) to run"), std::string::npos)
      << again.err;
  EXPECT_EQ(read_jsonl(out / "measurements.jsonl").size(), 8u);
  EXPECT_EQ(read_json(out / "report.json").at("benchmarks").size(), 8u);
}

TEST_F(BenchDevices, ADeviceABackendOrThePeerLacksIsBadUsageBeforeAnythingRuns) {
  const auto missing = run_opcert(bench_args(dir.path() + "/out") + " --devices 3", kTwoCpuDevices);
  EXPECT_EQ(missing.exit_code, 2) << missing.out << missing.err;
  EXPECT_NE(missing.err.find("--devices: backend 'devices' has no device 3"), std::string::npos) << missing.err;
  EXPECT_FALSE(fs::exists(dir.path() + "/out/measurements.jsonl")) << "nothing ran";

  // The devices plugin has a device 2; the peer, split in two, has not.
  const auto peer = run_opcert(bench_args(dir.path() + "/out2") + " --devices 2", kTwoCpuDevices);
  EXPECT_EQ(peer.exit_code, 2) << peer.out << peer.err;
  EXPECT_NE(peer.err.find("backend 'cpu' has no device 2"), std::string::npos) << peer.err;
  EXPECT_NE(peer.err.find("the peer is timed on the device of the rows it is compared with"), std::string::npos) << peer.err;
  EXPECT_FALSE(fs::exists(dir.path() + "/out2/measurements.jsonl")) << "nothing ran";
}

}  // namespace
}  // namespace opcert::test
