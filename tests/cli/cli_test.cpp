// The CLI contract of docs/CLI.md: verbs, --help, exit codes 0/2/3, one clear line per bad input.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <sys/wait.h>

#include <algorithm>
#include <string>
#include <vector>

#include "bench/report_files.h"
#include "cli/run_opcert.h"

namespace opcert::test {
namespace {

using nlohmann::json;

TEST(Cli, VersionNamesTheAbi) {
  const auto r = run_opcert("version");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("backend ABI 1.4"), std::string::npos) << r.out;
}

TEST(Cli, AnUnknownVerbIsOneLineNamingItAndExitTwo) {
  for (const char* args : {"nosuch", "nosuch --help", "nosuch run"}) {
    const auto r = run_opcert(args);
    EXPECT_EQ(r.exit_code, 2) << args;
    EXPECT_EQ(r.err, "opcert: error: unknown verb 'nosuch'; the verbs are list, run, bench, compare, certify, verify, golden, history, "
                     "dashboard, selftest, version (opcert --help)\n")
        << args;
    EXPECT_EQ(r.out, "") << args;
  }
}

TEST(Cli, ABuiltinBackendTheSelectionLeavesOutIsNotReportedUnavailable) {
  const json doc = json::parse(run_opcert("list --json").out);
  std::vector<std::string> builtins;
  for (const json& u : doc.at("unavailable"))
    if (u.at("source").get<std::string>().starts_with("built-in ")) builtins.push_back(u.at("source").get<std::string>());
  if (builtins.empty()) GTEST_SKIP() << "every built-in backend loads here: none for the selection to leave out";
  const std::string run = "run --backend cpu --no-peer --filter '^softmax.fp32' --progress plain --out ";
  TempDir dir;
  const auto quiet = run_opcert(run + dir.path() + "/quiet");
  EXPECT_EQ(quiet.exit_code, 0) << quiet.err;
  EXPECT_EQ(quiet.err.find("unavailable: built-in"), std::string::npos) << quiet.err;
  const auto verbose = run_opcert(run + dir.path() + "/verbose --verbose");
  EXPECT_EQ(verbose.exit_code, 0) << verbose.err;
  for (const std::string& b : builtins) EXPECT_NE(verbose.err.find("unavailable: " + b), std::string::npos) << verbose.err;
}

// A config given as a pipe (bash's process substitution) can be read once: the runner reads it and
// hands its text to every worker. Before, each worker re-opened the path, found an empty stream
// and every case was ERROR.
TEST(Cli, APlatformConfigThroughAPipeReachesTheWorkers) {
  TempDir dir;
  const std::string config = dir.write("piped.json", R"json({"name": "piped", "description": "given through <(...)",
                                                        "backend": "cpu", "implementations": {"softmax": "cpu.softmax.rowwise"}})json");
  const std::string command = "bash -c \"" OPCERT_BINARY " run --backend cpu --no-peer --filter '^softmax.fp32' "
                              "--progress plain --platform piped --platform-config <(cat " + config + ") --out " + dir.path() +
                              "/out\" > " + dir.path() + "/log 2>&1";
  const int status = std::system(command.c_str());
  const std::string text = read_text(dir.path() + "/log");
  EXPECT_EQ(WEXITSTATUS(status), 0) << text;
  const json report = read_json(dir.path() + "/out/report.json");
  EXPECT_EQ(report.at("platform"), "piped");
  ASSERT_FALSE(report.at("results").empty());
  for (const json& r : report.at("results")) EXPECT_EQ(r.at("status"), "PASSED") << r.dump();
}

TEST(Cli, EveryVerbHasHelp) {
  for (const char* verb : {"list", "run", "bench", "compare", "certify", "verify", "golden", "version"}) {
    const auto r = run_opcert(std::string(verb) + " --help");
    EXPECT_EQ(r.exit_code, 0) << verb << ": " << r.err;
    EXPECT_NE(r.out.find("Usage"), std::string::npos) << verb << ": " << r.out;
  }
}

TEST(Cli, ListShowsTheCpuBackendOpsAndPlatforms) {
  const auto r = run_opcert("list");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("cpu "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("built-in"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("attention"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("cuda-h100"), std::string::npos) << r.out;
}

// The unavailable entries that are plugins: a built-in backend whose device is absent here (the
// CUDA backend on a machine without a GPU) is listed too, and is not what these tests look at.
json unavailable_plugins(const json& doc) {
  json out = json::array();
  for (const auto& u : doc["unavailable"])
    if (u["source"].get<std::string>().rfind("built-in", 0) != 0) out.push_back(u);
  return out;
}

TEST(Cli, ListJsonIsMachineReadable) {
  const auto r = run_opcert("list --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json doc = json::parse(r.out);
  ASSERT_FALSE(doc["backends"].empty());
  const json& cpu = doc["backends"][0];
  EXPECT_EQ(cpu["name"], "cpu");
  EXPECT_EQ(cpu["source"]["kind"], "built-in");
  EXPECT_EQ(cpu["abi_version"], "1.4");
  EXPECT_EQ(doc["ops"].size(), 14u);
  bool has_h200 = false;
  for (const auto& p : doc["platforms"]) has_h200 = has_h200 || p["name"] == "cuda-h200";
  EXPECT_TRUE(has_h200);
  EXPECT_TRUE(unavailable_plugins(doc).empty()) << doc["unavailable"].dump();
}

TEST(Cli, UnknownVerbOrFlagIsBadUsage) {
  EXPECT_EQ(run_opcert("frobnicate").exit_code, 2);
  const auto r = run_opcert("list --no-such-flag");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--no-such-flag"), std::string::npos) << r.err;
}

TEST(Cli, NoVerbIsBadUsageInOneLineThenTheUsage) {
  const auto r = run_opcert("");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err.rfind("opcert: error: no verb given: give one of list, run, bench, compare, certify, verify, golden, "
                        "history, dashboard, selftest, version (opcert); see opcert --help\n",
                        0),
            0u)
      << r.err;
  EXPECT_NE(r.err.find("Usage: "), std::string::npos) << r.err;
}

TEST(Cli, HelpAndVersionStillExitZero) {
  const auto help = run_opcert("--help");
  EXPECT_EQ(help.exit_code, 0) << help.err;
  EXPECT_NE(help.out.find("Usage"), std::string::npos) << help.out;
  const auto version = run_opcert("--version");
  EXPECT_EQ(version.exit_code, 0) << version.err;
  EXPECT_EQ(version.out.rfind("opcert ", 0), 0u) << version.out;
}

// docs/CLI.md, "Bad usage", through the binary on a few of each kind (cli_flags_test.cpp walks
// every flag in-process): exit 2, one line naming the flag, nothing on stdout.
TEST(Cli, ABadValueOrFlagIsOneLineNamingItAndExitTwo) {
  struct Bad {
    const char* args;
    const char* names;
  };
  for (const Bad& b : {Bad{"run --seed abc", "(opcert run --seed)"}, Bad{"run --seed -1", "(opcert run --seed)"},
                       Bad{"run --timeout 0", "(opcert run --timeout)"}, Bad{"list --no-such-flag", "'--no-such-flag'"},
                       Bad{"bench --benchmark_repetitions=abc", "(opcert bench --benchmark_repetitions)"},
                       Bad{"history list --limit -3", "(opcert history list --limit)"},
                       Bad{"compare /nonexistent/run-a", "(opcert compare runs)"},
                       Bad{"certify --plan basic --sign-key /nonexistent/key.pem", "(opcert certify --sign-key)"}}) {
    const auto r = run_opcert(b.args);
    EXPECT_EQ(r.exit_code, 2) << b.args << ": " << r.err;
    EXPECT_EQ(r.out, "") << b.args;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << b.args << ": " << r.err;
    EXPECT_EQ(r.err.rfind("opcert: error: ", 0), 0u) << b.args << ": " << r.err;
    EXPECT_NE(r.err.find(b.names), std::string::npos) << b.args << ": " << r.err;
    EXPECT_EQ(r.err.find("Run with --help"), std::string::npos) << b.args << ": " << r.err;
    EXPECT_EQ(r.err.find("e+308"), std::string::npos) << b.args << ": " << r.err;
  }
}

TEST(Cli, SelectionMatchingNothingExitsThree) {
  const auto run = run_opcert("run --backend no_such_backend");
  EXPECT_EQ(run.exit_code, 3);
  EXPECT_NE(run.err.find("no_such_backend"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("cpu"), std::string::npos) << "should name what is usable: " << run.err;
  EXPECT_EQ(run_opcert("list --backend no_such_backend").exit_code, 3);
}

TEST(Cli, BackendSelectionFromEnvironment) {
  const auto r = run_opcert("run", "OPCERT_BACKENDS=no_such_backend");
  EXPECT_EQ(r.exit_code, 3) << r.out;
}

TEST(Cli, RunReportsTheBackendsItRan) {
  TempDir dir;
  const auto r = run_opcert("run --backend cpu --no-peer --filter '^softmax' --progress plain --out " + dir.path());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("cpu"), std::string::npos) << r.out;
}

TEST(Cli, MissingPlatformConfigIsOneClearLine) {
  const auto r = run_opcert("list --platform-config /nonexistent/platform.json");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("/nonexistent/platform.json"), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
}

TEST(Cli, MalformedPlatformConfigGivesLineAndColumn) {
  TempDir dir;
  const std::string file = dir.write("bad.json", "{\n  \"name\": \"x\",\n  oops\n}\n");
  const auto r = run_opcert("list --platform-config " + file);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find(file + ":3:"), std::string::npos) << r.err;
}

TEST(Cli, PlatformConfigFromEnvironmentIsValidated) {
  TempDir dir;
  const std::string file = dir.write("unknown.json", R"({"name": "x", "backend": "cpu", "bogus_field": 1})");
  const auto r = run_opcert("list", "OPCERT_PLATFORM_JSON=" + file);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("bogus_field"), std::string::npos) << r.err;
}

TEST(Cli, UnknownPlatformIsBadInput) {
  const auto r = run_opcert("list --platform no-such-platform");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("no-such-platform"), std::string::npos) << r.err;
}

TEST(Cli, BrokenPluginIsListedAndTheOthersGoOn) {
  TempDir dir;
  dir.write("broken.json", "{ \"file_format_version\": \"1.0.0\", ");
  dir.write("absent.json",
            R"({"file_format_version": "1.0.0", "backend": {"name": "ghost", "library_path": "libghost.so", "abi_version": "1.0"}})");
  const auto r = run_opcert("list --json --plugin-dir " + dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json doc = json::parse(r.out);
  EXPECT_EQ(doc["backends"][0]["name"], "cpu");
  ASSERT_EQ(unavailable_plugins(doc).size(), 2u) << doc.dump();
  const std::string all = unavailable_plugins(doc).dump();
  EXPECT_NE(all.find("broken.json:1:"), std::string::npos) << all;
  EXPECT_NE(all.find("library not found"), std::string::npos) << all;
}

// A manifest whose abi_version is not what its library reports: listed, with a warning.
TEST(Cli, ListWarnsOfAManifestDeclaringAnotherAbiThanItsLibrary) {
  TempDir dir;
  dir.write("good.json", std::string(R"({"file_format_version": "1.0.0", "backend": {"name": "test_good", "library_path": ")") +
                             TEST_GOOD_PLUGIN + R"(", "abi_version": "1.0"}})");
  const auto text = run_opcert("list --backend test_good --plugin-dir " + dir.path());
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("\n    warning: its manifest declares ABI 1.0, the library reports 1.4\n"), std::string::npos) << text.out;
  const auto j = run_opcert("list --json --backend test_good --plugin-dir " + dir.path());
  ASSERT_EQ(j.exit_code, 0) << j.err;
  const json doc = json::parse(j.out);
  EXPECT_EQ(doc["backends"][0]["warnings"], json({"its manifest declares ABI 1.0, the library reports 1.4"})) << j.out;
}

TEST(Cli, PluginPathFromEnvironment) {
  TempDir dir;
  dir.write("absent.json",
            R"({"file_format_version": "1.0.0", "backend": {"name": "ghost", "library_path": "libghost.so", "abi_version": "1.0"}})");
  const auto r = run_opcert("list", "OPCERT_PLUGIN_PATH=" + dir.path());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("absent.json"), std::string::npos) << r.out;
}


// A case too big for any machine here (bf16 GEMM 100000^3, 60 GB of operands and output) is
// SKIPPED at once with its figures, and the run goes on; --max-memory lowers the limit.
TEST(Cli, ACaseTooBigIsSkippedWithItsFiguresAndTheRunGoesOn) {
  TempDir dir;
  const std::string suite = dir.write("big.json", R"({"suite_format": "1.0", "cases": [
    {"op": "gemm", "params": {"dtype": "bf16", "m": 100000, "n": 100000, "k": 100000}},
    {"op": "softmax", "params": {"dtype": "fp32", "rows": 64, "n": 1000}}]})");
  const auto r = run_opcert("run --backend cpu --no-peer --progress plain --suite " + suite + " --out " + dir.path() + "/big");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.err.find("gemm.bf16.m100000.n100000.k100000 SKIPPED"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("of host memory (operands 37.3G, outputs 18.6G, fp64 reference"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("softmax.fp32.rows64.n1000 PASSED"), std::string::npos) << r.err;

  const auto capped = run_opcert("run --backend cpu --no-peer --progress plain --max-memory 300K --suite " + suite +
                                 " --out " + dir.path() + "/capped");
  EXPECT_EQ(capped.exit_code, 0) << capped.err;
  EXPECT_NE(capped.err.find("softmax.fp32.rows64.n1000 SKIPPED"), std::string::npos) << capped.err;
  EXPECT_NE(capped.err.find("more than --max-memory 300K"), std::string::npos) << capped.err;
  const auto bad = run_opcert("run --backend cpu --max-memory lots --suite " + suite + " --out " + dir.path() + "/bad");
  EXPECT_EQ(bad.exit_code, 2) << bad.err;
  // bench admits its cases the same way: the GEMM is not benchmarked, the softmax is.
  const auto bench = run_opcert("bench --backend cpu --no-peer --benchmark_min_time=0.01 --suite " + suite + " --out " +
                                dir.path() + "/bench");
  EXPECT_EQ(bench.exit_code, 0) << bench.out << bench.err;
  const std::string said = bench.out + bench.err;
  EXPECT_NE(said.find("not benchmarked: gemm.bf16.m100000.n100000.k100000 on cpu.gemm.blocked: SKIPPED (needs "), std::string::npos)
      << said;
  EXPECT_NE(said.find("softmax.fp32.rows64.n1000"), std::string::npos) << said;
}

}  // namespace
}  // namespace opcert::test
