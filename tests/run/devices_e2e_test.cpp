// `opcert run --devices` end to end: one worker per device, in parallel, each pinned to its device,
// every result tagged with it, and a bad device shown as that device's failures. Against the
// devices test plugin (three devices, one made wrong with OPCERT_TEST_BAD_DEVICE;
// tests/plugins/test_devices.cpp) and the CPU backend's partitions (OPCERT_CPU_DEVICES).
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <map>
#include <set>
#include <sstream>

#include "bench/report_files.h"
#include "cli/run_opcert.h"

namespace opcert::test {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

std::string devices_args(const std::string& out) {
  return std::string("run --plugin ") + TEST_DEVICES_PLUGIN + " --backend devices --suite " + DEVICES_SUITE +
         " --no-peer --progress plain --out " + out;
}

TEST(RunDevices, ABadDeviceShowsAsThatDevicesFailuresAndTheOthersPass) {
  TempDir dir;
  const std::string out = dir.path() + "/out";
  const auto r = run_opcert(devices_args(out) + " --devices all --device-mode each", "OPCERT_TEST_BAD_DEVICE=1");
  EXPECT_EQ(r.exit_code, 1) << "a failed case fails the run\n" << r.out << r.err;

  // Every device ran every case: 3 devices x 2 cases, each tagged with its device.
  const auto results = read_jsonl(fs::path(out) / "results.jsonl");
  ASSERT_EQ(results.size(), 6u) << read_text(fs::path(out) / "results.jsonl");
  std::map<int, std::map<std::string, std::string>> by_device;
  for (const auto& res : results) {
    ASSERT_TRUE(res.contains("device")) << res.dump();
    const int index = res["device"]["index"];
    by_device[index][res["case"]] = res["status"];
    EXPECT_EQ(res["device"]["name"], "test device " + std::to_string(index));
    EXPECT_FALSE(res["device"]["host"].get<std::string>().empty());
    // The device's identity (ABI 1.4): its UUID, and its PCI bus id where it has one (null: unknown).
    EXPECT_EQ(res["device"]["uuid"], "TEST-DEVICE-" + std::to_string(index)) << res.dump();
    if (index == 2)
      EXPECT_TRUE(res["device"]["pci_bus_id"].is_null()) << res.dump();
    else
      EXPECT_EQ(res["device"]["pci_bus_id"], "0000:0" + std::to_string(index) + ":00.0") << res.dump();
    EXPECT_FALSE(res.contains("rank")) << "one process: no rank";
    EXPECT_NE(res["repro"].get<std::string>().find(" --devices " + std::to_string(index)), std::string::npos) << res["repro"];
  }
  const std::map<std::string, std::string> pass{{"softmax.d2", "PASSED"}, {"softmax.d4", "PASSED"}};
  const std::map<std::string, std::string> fail{{"softmax.d2", "FAILED"}, {"softmax.d4", "FAILED"}};
  EXPECT_EQ(by_device[0], pass);
  EXPECT_EQ(by_device[1], fail) << "device 1 is the bad one";
  EXPECT_EQ(by_device[2], pass);

  // One worker per device, each with its own log.
  for (int d = 0; d < 3; ++d)
    EXPECT_TRUE(fs::is_regular_file(fs::path(out) / "logs" / ("devices.device" + std::to_string(d) + ".worker.log"))) << d;

  // The reports say which device failed.
  const json report = json::parse(read_text(fs::path(out) / "report.json"));
  EXPECT_EQ(report["schema_version"], "2.12");
  EXPECT_EQ(report["results"].size(), 6u);
  const json& devices = report["summary"]["backends"]["devices"]["devices"];
  EXPECT_EQ(devices["device 0"]["counts"]["PASSED"], 2) << devices.dump();
  EXPECT_EQ(devices["device 1"]["counts"]["FAILED"], 2) << devices.dump();
  EXPECT_EQ(devices["device 2"]["counts"]["PASSED"], 2) << devices.dump();
  const std::string junit = read_text(fs::path(out) / "junit.xml");
  EXPECT_NE(junit.find("classname=\"devices.device1.softmax\" name=\"softmax.d2 (device 1)\""), std::string::npos) << junit;
  EXPECT_NE(junit.find("classname=\"devices.device0.softmax\" name=\"softmax.d2 (device 0)\""), std::string::npos) << junit;
  const std::string summary = read_text(fs::path(out) / "summary.md");
  EXPECT_NE(summary.find("| devices [device 1] | softmax | 2 | 0 | 2 |"), std::string::npos) << summary;
  EXPECT_NE(summary.find("on device 1 (`test device 1`"), std::string::npos) << summary;
  EXPECT_NE(summary.find(", UUID `TEST-DEVICE-1`, PCI `0000:01:00.0`)"), std::string::npos) << summary;
  EXPECT_NE(junit.find("device: device 1 test device 1 on host "), std::string::npos) << "the failure's text\n" << junit;
  EXPECT_NE(junit.find(", UUID TEST-DEVICE-1, PCI 0000:01:00.0"), std::string::npos) << junit;
  EXPECT_NE(r.out.find("devices [device 2]"), std::string::npos) << "the summary table: " << r.out;
}

TEST(RunDevices, TheDevicesWorkersRunAtTheSameTime) {
  TempDir dir;
  const std::string trace = dir.path() + "/trace";
  const auto r = run_opcert(devices_args(dir.path() + "/out") + " --devices 0,2 --device-mode each",
                            "OPCERT_TEST_TRACE=" + trace + " OPCERT_TEST_SLEEP_MS=700");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  // Each call's interval, by device; in parallel some call of device 0 overlaps one of device 2.
  std::map<int, std::vector<std::pair<long long, long long>>> calls;
  std::istringstream in(read_text(trace));
  int device = 0;
  long long start = 0, end = 0;
  while (in >> device >> start >> end) calls[device].push_back({start, end});
  ASSERT_EQ(calls[0].size(), 2u) << read_text(trace);
  ASSERT_EQ(calls[2].size(), 2u) << read_text(trace);
  EXPECT_TRUE(calls[1].empty()) << "device 1 was not chosen";
  bool overlap = false;
  for (const auto& a : calls[0])
    for (const auto& b : calls[2]) overlap = overlap || (a.first < b.second && b.first < a.second);
  EXPECT_TRUE(overlap) << "the two devices' workers ran one after the other:\n" << read_text(trace);
}

// --device-mode spread (run's default): the devices share the cases, each worker taking the next
// one not yet started, so a slow device runs fewer; every case once, tagged with its device, in the
// suite's order.
TEST(RunDevices, SpreadSharesTheCasesSoASlowDeviceTakesFewer) {
  TempDir dir;
  json suite = {{"suite_format", "1.0"}, {"description", "eight softmax cases"}, {"cases", json::array()}};
  for (int i = 1; i <= 8; ++i)
    suite["cases"].push_back({{"op", "softmax"}, {"id", "softmax.s" + std::to_string(i)},
                              {"params", {{"shape", {i, 16}}, {"dtype", "fp32"}}}});
  const std::string suite_path = dir.write("suite.json", suite.dump());
  const std::string out = dir.path() + "/out";
  const auto r = run_opcert(std::string("run --plugin ") + TEST_DEVICES_PLUGIN + " --backend devices --suite " + suite_path +
                                " --no-peer --progress plain --devices 0,1 --out " + out,
                            "OPCERT_TEST_SLOW_DEVICE=1 OPCERT_TEST_SLOW_MS=1500");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  const auto results = read_jsonl(fs::path(out) / "results.jsonl");
  ASSERT_EQ(results.size(), 8u) << "every case once, not once per device";
  std::map<int, int> per_device;
  for (std::size_t i = 0; i < results.size(); ++i) {
    EXPECT_EQ(results[i]["case"], "softmax.s" + std::to_string(i + 1)) << "the suite's order";
    EXPECT_EQ(results[i]["status"], "PASSED") << results[i].dump();
    ASSERT_TRUE(results[i].contains("device")) << results[i].dump();
    ++per_device[results[i]["device"]["index"].get<int>()];
  }
  EXPECT_GT(per_device[0], per_device[1]) << "the slow device held the fast one back";
  EXPECT_GE(per_device[1], 1) << "the slow device took a case too";
}

TEST(RunDevices, WithoutTheFlagOneWorkerRunsTheFirstDeviceUntagged) {
  TempDir dir;
  const std::string out = dir.path() + "/out";
  const auto r = run_opcert(devices_args(out), "OPCERT_TEST_BAD_DEVICE=1");
  EXPECT_EQ(r.exit_code, 0) << "device 0 is good\n" << r.out << r.err;
  const auto results = read_jsonl(fs::path(out) / "results.jsonl");
  ASSERT_EQ(results.size(), 2u);
  for (const auto& res : results) {
    EXPECT_FALSE(res.contains("device")) << res.dump();
    EXPECT_EQ(res["repro"].get<std::string>().find("--devices"), std::string::npos) << res["repro"];
  }
  EXPECT_TRUE(fs::is_regular_file(fs::path(out) / "logs" / "devices.worker.log"));
  EXPECT_FALSE(json::parse(read_text(fs::path(out) / "report.json"))["summary"]["backends"]["devices"].contains("devices"));
}

TEST(RunDevices, ADeviceTheBackendLacksIsOneLineAndExitTwo) {
  TempDir dir;
  const auto r = run_opcert(devices_args(dir.path() + "/out") + " --devices 0,3");
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("opcert: error: --devices: backend 'devices' has no device 3: it has 3 (0 to 2)"), std::string::npos)
      << r.err;
  EXPECT_FALSE(fs::exists(dir.path() + "/out/results.jsonl")) << "nothing ran";

  const auto bad = run_opcert(devices_args(dir.path() + "/out2") + " --devices first");
  EXPECT_EQ(bad.exit_code, 2) << bad.out << bad.err;
  EXPECT_NE(bad.err.find("--devices 'first': 'first' is not a device index"), std::string::npos) << bad.err;
}

TEST(RunDevices, TheCpuBackendSplitsTheHostIntoPartitions) {
  TempDir dir;
  const auto list = run_opcert("list --json --backend cpu", "OPCERT_CPU_DEVICES=3");
  ASSERT_EQ(list.exit_code, 0) << list.err;
  json cpu;
  const json listed = json::parse(list.out);
  for (const auto& b : listed["backends"])
    if (b["name"] == "cpu") cpu = b;
  ASSERT_EQ(cpu["devices"].size(), 3u) << cpu.dump();
  std::set<std::string> uuids;
  for (const auto& d : cpu["devices"]) {
    EXPECT_EQ(d["name"].get<std::string>().rfind("host CPU, core", 0), 0u) << d.dump();
    // A partition's identity: the machine id and its CPUs; no PCI bus id of its own.
    if (fs::exists("/etc/machine-id")) {
      EXPECT_EQ(d["uuid"].get<std::string>().rfind("CPU-" + read_text("/etc/machine-id").substr(0, 32) + "-", 0), 0u)
          << d.dump();
      uuids.insert(d["uuid"].get<std::string>());
    }
    EXPECT_TRUE(d["pci_bus_id"].is_null()) << d.dump();
  }
  if (fs::exists("/etc/machine-id")) {
    EXPECT_EQ(uuids.size(), 3u) << "each partition its own: " << cpu.dump();
  }

  const std::string out = dir.path() + "/out";
  const auto r = run_opcert("run --backend cpu --no-peer --progress plain --filter '^softmax\\.fp32' --devices all --device-mode each --out " + out,
                            "OPCERT_CPU_DEVICES=2");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  std::map<int, int> per_device;
  for (const auto& res : read_jsonl(fs::path(out) / "results.jsonl")) {
    EXPECT_EQ(res["status"], "PASSED") << res.dump();
    ++per_device[res["device"]["index"].get<int>()];
  }
  ASSERT_EQ(per_device.size(), 2u);
  EXPECT_GT(per_device[0], 0);
  EXPECT_EQ(per_device[0], per_device[1]) << "each partition runs every case";

  const auto unset = run_opcert("list --json --backend cpu");
  ASSERT_EQ(unset.exit_code, 0) << unset.err;
  const json listed_unset = json::parse(unset.out);
  for (const auto& b : listed_unset["backends"]) {
    if (b["name"] != "cpu") continue;
    ASSERT_EQ(b["devices"].size(), 1u) << "without OPCERT_CPU_DEVICES, the whole host as before";
    EXPECT_EQ(b["devices"][0]["name"], "host CPU");
  }
}

}  // namespace
}  // namespace opcert::test
