// Plugins that end their process while they load (tests/plugins/test_dies_loading.cpp): a static
// constructor that segfaults at dlopen, an initialize that segfaults, hangs or calls exit(). The
// runner's plugin probe (harness/session/worker/plugin_probe.h) must list each unavailable with how its
// probe ended and the plugin's last stderr line, and `opcert list` and `opcert run` go on with
// every other backend. Before the probe, each of them ended opcert itself.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <map>
#include <string>

#include "bench/report_files.h"
#include "cli/run_opcert.h"

namespace opcert::test {
namespace {

using nlohmann::json;

// The four dying plugins and the good one, the hang cut at 3 s.
const std::string kPlugins = std::string(" --probe-timeout 3 --plugin ") + TEST_DIES_AT_DLOPEN_PLUGIN +
                             " --plugin " + TEST_DIES_IN_INIT_PLUGIN + " --plugin " + TEST_HANGS_IN_INIT_PLUGIN +
                             " --plugin " + TEST_EXITS_IN_INIT_PLUGIN + " --plugin " + TEST_GOOD_PLUGIN;

struct Expected {
  std::string reason;
  std::string stderr_line;
};

// What each dying plugin's unavailable entry says, by library.
const std::map<std::string, Expected>& expected() {
  static const std::map<std::string, Expected> e = {
      {TEST_DIES_AT_DLOPEN_PLUGIN,
       {"not loaded: the plugin probe died with SIGSEGV while loading its library (dlopen, its static constructors)",
        "test_dies_loading: static constructor about to segfault"}},
      {TEST_DIES_IN_INIT_PLUGIN,
       {"not loaded: the plugin probe died with SIGSEGV while initialising it",
        "test_dies_loading: initialize about to segfault"}},
      {TEST_HANGS_IN_INIT_PLUGIN,
       {"not loaded: initialising it took longer than the plugin probe's 3 s (--probe-timeout, OPCERT_PROBE_TIMEOUT); "
        "the probe was killed",
        "test_dies_loading: initialize hanging"}},
      {TEST_EXITS_IN_INIT_PLUGIN,
       {"not loaded: the plugin probe exited with code 5 while initialising it",
        "test_dies_loading: initialize calling exit(5)"}},
  };
  return e;
}

TEST(PluginProbeEndToEnd, ListJsonNamesEachDyingPluginWithHowItsProbeEndedAndItsStderr) {
  const auto r = run_opcert("list --json" + kPlugins);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json doc = json::parse(r.out);
  std::map<std::string, json> names;
  for (const json& b : doc.at("backends")) names[b.at("name").get<std::string>()] = b;
  EXPECT_EQ(names.count("cpu"), 1u);
  EXPECT_EQ(names.count("test_good"), 1u) << "a good plugin beside dying ones still loads";
  std::map<std::string, json> unavailable;
  for (const json& u : doc.at("unavailable")) unavailable[u.at("source").get<std::string>()] = u;
  for (const auto& [library, want] : expected()) {
    ASSERT_EQ(unavailable.count(library), 1u) << library << " in " << doc.at("unavailable").dump();
    const json& u = unavailable[library];
    EXPECT_EQ(u.at("reason"), want.reason) << library;
    ASSERT_FALSE(u.at("stderr_tail").empty()) << library;
    EXPECT_EQ(u.at("stderr_tail").back(), want.stderr_line) << library;
  }
}

TEST(PluginProbeEndToEnd, ListTextShowsTheReasonAndTheStderrLine) {
  const auto r = run_opcert("list" + kPlugins);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const auto& [library, want] : expected()) {
    EXPECT_NE(r.out.find("  " + library + "\n    " + want.reason + "\n"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("      | " + want.stderr_line + "\n"), std::string::npos) << r.out;
  }
}

TEST(PluginProbeEndToEnd, RunOfTheCpuBackendGoesOnAndSaysWhyEachPluginIsUnavailable) {
  TempDir dir;
  const auto r = run_opcert("run --backend cpu --no-peer --filter '^softmax.fp32' --progress plain --out " + dir.path() +
                            "/out" + kPlugins);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const auto& [library, want] : expected()) {
    EXPECT_NE(r.err.find("opcert: unavailable: " + library + ": " + want.reason + "\n"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("opcert:   | " + want.stderr_line + "\n"), std::string::npos) << r.err;
  }
}

// The workers of a plugin backend load the same plugins as their runner: they must skip what
// ended the runner's probe, or the good plugin's worker would die with the bad one.
TEST(PluginProbeEndToEnd, AGoodPluginsWorkersSkipWhatEndedTheProbe) {
  TempDir dir;
  const auto r = run_opcert("run --backend test_good --no-peer --filter '^softmax.fp32' --progress plain --out " +
                            dir.path() + "/out" + kPlugins);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const json report = read_json(dir.path() + "/out/report.json");
  ASSERT_FALSE(report.at("results").empty());
  for (const json& res : report.at("results")) EXPECT_EQ(res.at("status"), "PASSED") << res.dump();
}

// The probe child is a program of its own without LibTorch (harness/cli/plugin_probe_main.cpp):
// opcert's start, LibTorch's loading and static initialisation (about 1 s of CPU), would otherwise
// be paid once more by every verb that loads plugins. The tests above show the runner uses it.
TEST(PluginProbeEndToEnd, TheProbeProgramLoadsNoLibTorch) {
  const auto r = run_opcert_binary("ldd", OPCERT_PLUGIN_PROBE);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("libstdc++"), std::string::npos) << r.out;  // ldd did list its libraries
  EXPECT_EQ(r.out.find("libtorch"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("libc10"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace opcert::test
