// `opcert run` end to end, as a user runs it, against the crashy test plugin: its softmax
// segfaults when the first dimension is 3, hangs when it is 5, passes otherwise, and supports
// only fp32 (tests/plugins/test_crashy.cpp, tests/run/data/crashy_suite.json).
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <signal.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>

#include "bench/report_files.h"
#include "cli/run_opcert.h"

namespace opcert::test {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

// case id -> status, for one backend's lines of results.jsonl.
std::map<std::string, std::string> statuses(const std::vector<json>& results, const std::string& backend) {
  std::map<std::string, std::string> out;
  for (const auto& r : results)
    if (r.at("backend") == backend) out[r.at("case").get<std::string>()] = r.at("status").get<std::string>();
  return out;
}

std::string crashy_args(const std::string& out_dir) {
  return std::string("run --plugin ") + TEST_CRASHY_PLUGIN + " --backend crashy --suite " + CRASHY_SUITE +
         " --out " + out_dir + " --progress plain";
}

std::size_t count_lines(const std::string& text) { return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')); }

TEST(RunEndToEnd, CrashAndHangAreIsolatedAndTheRunGoesOn) {
  TempDir dir;
  const std::string out = dir.path() + "/out";
  const auto t0 = std::chrono::steady_clock::now();
  const auto r = run_opcert(crashy_args(out) + " --timeout 2");
  const auto took = std::chrono::steady_clock::now() - t0;
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_LT(took, std::chrono::seconds(60)) << "the hang must be cut by the 2 s timeout";

  const auto results = read_jsonl(fs::path(out) / "results.jsonl");
  const std::map<std::string, std::string> expected{{"softmax.d2", "PASSED"},  {"softmax.d3", "CRASHED"},
                                                    {"softmax.d4", "PASSED"},  {"softmax.d5", "TIMEOUT"},
                                                    {"softmax.d6", "PASSED"},  {"softmax.d4.fp16", "SKIPPED"}};
  EXPECT_EQ(statuses(results, "crashy"), expected);
  for (const auto& res : results) {
    if (res.at("backend") != "crashy") continue;
    const std::string id = res.at("case");
    const std::string repro = res.at("repro");
    EXPECT_NE(repro.find("opcert run --backend crashy --impl crashy.softmax.segv"), std::string::npos) << repro;
    std::string escaped;
    for (char ch : id) escaped += ch == '.' ? std::string("\\.") : std::string(1, ch);
    EXPECT_NE(repro.find("--filter '^" + escaped + "$'"), std::string::npos) << repro;
    EXPECT_NE(repro.find(std::string("--plugin ") + TEST_CRASHY_PLUGIN), std::string::npos) << repro;
    EXPECT_NE(repro.find(" --seed 1"), std::string::npos) << repro;
    if (id == "softmax.d3") {
      EXPECT_EQ(res.at("message"), "worker died with SIGSEGV during the case; see logs/crashy.worker.log");
    }
    if (id == "softmax.d5") {
      EXPECT_NE(res.at("message").get<std::string>().find("2 s timeout"), std::string::npos) << res.dump();
      EXPECT_GE(res.at("duration_ms").get<double>(), 2000.0);
    }
    if (id == "softmax.d4.fp16") {
      EXPECT_EQ(res.at("message"), "crashy softmax supports only fp32");
    }
  }
  EXPECT_NE(r.err.find("[2/"), std::string::npos) << "plain progress lines: " << r.err;
  EXPECT_NE(r.err.find("softmax.d3 CRASHED"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("    repro: opcert run --backend crashy"), std::string::npos) << r.err;

  for (const char* file : {"report.json", "junit.xml", "summary.md", "logs/crashy.worker.log"})
    EXPECT_TRUE(fs::is_regular_file(fs::path(out) / file)) << file;
  const json report = json::parse(read_text(fs::path(out) / "report.json"));
  EXPECT_EQ(report.at("complete"), true);
  EXPECT_EQ(report.at("exit_code"), 1);
  EXPECT_EQ(report.at("seed"), 1);
  bool saw_crashy = false;
  for (const auto& b : report.at("backends")) {
    if (b.at("name") == "crashy") {
      saw_crashy = true;
      EXPECT_EQ(b.at("source"), "plugin");
      EXPECT_EQ(b.at("peer"), false);
      EXPECT_EQ(b.at("sha256").get<std::string>().size(), 64u);
    }
    if (b.at("name") == "torch") {
      EXPECT_EQ(b.at("peer"), true) << "torch runs as the alignment peer";
    }
  }
  EXPECT_TRUE(saw_crashy);
  EXPECT_EQ(report.at("results").size(), results.size()) << "report.json has every streamed result";
  EXPECT_NE(r.out.find("crashy"), std::string::npos) << "the summary table: " << r.out;
  EXPECT_NE(r.out.find(out), std::string::npos) << "names the output directory: " << r.out;
}

TEST(RunEndToEnd, PassingCasesExitZeroAndThePeerDoesNotGate) {
  TempDir dir;
  const std::string out = dir.path() + "/out";
  const auto r = run_opcert(crashy_args(out) + " --filter '^softmax\\.d(2|4)$'");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  const auto results = read_jsonl(fs::path(out) / "results.jsonl");
  EXPECT_EQ(statuses(results, "crashy"),
            (std::map<std::string, std::string>{{"softmax.d2", "PASSED"}, {"softmax.d4", "PASSED"}}));
}

TEST(RunEndToEnd, NoPeerRunsOnlyTheSelectedBackend) {
  TempDir dir;
  const std::string out = dir.path() + "/out";
  const auto r = run_opcert(crashy_args(out) + " --no-peer --filter 'd2$'");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  const auto results = read_jsonl(fs::path(out) / "results.jsonl");
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].at("backend"), "crashy");
}

// SIGTERM or SIGINT in the middle of a run: exit 130, every finished case kept, the reports
// written with complete: false.
void stop_mid_run(int sig, const std::string& name) {
  TempDir dir;
  const std::string out = dir.path() + "/out";
  const std::string log = dir.path() + "/opcert.log";
  // d2, d3 (crash) and d4 finish, then d5 hangs under a long timeout: SIGTERM arrives there.
  const auto results_path = fs::path(out) / "results.jsonl";
  const StoppedCommand stopped = stop_opcert_when(
      {"run", "--plugin", TEST_CRASHY_PLUGIN, "--backend", "crashy", "--no-peer", "--suite", CRASHY_SUITE, "--out", out,
       "--progress", "plain", "--timeout", "120"},
      log, [&] { return fs::exists(results_path) && count_lines(read_text(results_path)) >= 3; }, sig);
  ASSERT_TRUE(stopped.ready) << read_text(log);
  ASSERT_EQ(count_lines(read_text(results_path)), 3u) << read_text(log);
  EXPECT_LT(stopped.after_signal, std::chrono::seconds(10)) << "stops promptly";
  ASSERT_TRUE(stopped.exited) << "handled, not killed by the signal";
  EXPECT_EQ(stopped.exit_code, 130) << read_text(log);

  const auto results = read_jsonl(results_path);
  EXPECT_EQ(statuses(results, "crashy"),
            (std::map<std::string, std::string>{
                {"softmax.d2", "PASSED"}, {"softmax.d3", "CRASHED"}, {"softmax.d4", "PASSED"}}));
  const json report = json::parse(read_text(fs::path(out) / "report.json"));
  EXPECT_EQ(report.at("complete"), false);
  EXPECT_EQ(report.at("results").size(), 3u);
  EXPECT_TRUE(fs::is_regular_file(fs::path(out) / "junit.xml"));
  EXPECT_TRUE(fs::is_regular_file(fs::path(out) / "summary.md"));
  EXPECT_NE(read_text(log).find(name), std::string::npos) << read_text(log);
}

TEST(RunEndToEnd, SigtermKeepsWhatWasMeasured) { stop_mid_run(SIGTERM, "SIGTERM"); }

TEST(RunEndToEnd, SigintKeepsWhatWasMeasured) { stop_mid_run(SIGINT, "SIGINT"); }

// A plugin that aborts, one that exits the process, and one that writes NaN: each is that case's
// verdict (CRASHED, CRASHED, FAILED) and the run goes on to the next.
TEST(RunEndToEnd, AbortExitAndNanOutputsAreEachTheirCasesVerdict) {
  TempDir dir;
  const std::string out = dir.path() + "/out";
  const auto r = run_opcert(std::string("run --plugin ") + TEST_CRASHY_PLUGIN + " --backend crashy --no-peer --suite " +
                            CRASHY_FAULTS_SUITE + " --out " + out + " --progress plain");
  EXPECT_EQ(r.exit_code, 1) << r.err;
  const auto results = read_jsonl(fs::path(out) / "results.jsonl");
  EXPECT_EQ(statuses(results, "crashy"),
            (std::map<std::string, std::string>{
                {"softmax.d7", "CRASHED"}, {"softmax.d8", "CRASHED"}, {"softmax.d9", "FAILED"}, {"softmax.d2", "PASSED"}}));
  for (const auto& res : results) {
    const std::string message = res.at("message");
    if (res.at("case") == "softmax.d7") {
      EXPECT_NE(message.find("SIGABRT"), std::string::npos) << message;
    }
    if (res.at("case") == "softmax.d8") {
      EXPECT_NE(message.find("3"), std::string::npos) << message;
    }
    if (res.at("case") == "softmax.d9") {
      EXPECT_NE(message.find("NaN"), std::string::npos) << message;
    }
  }
}

// A plugin that allocates without end meets the worker's memory limit (--max-memory here), not the
// host's OOM killer: its case is CRASHED saying so, with the figures, and the next case runs.
TEST(RunEndToEnd, ARunawayPluginIsCrashedAtTheWorkersMemoryLimit) {
  TempDir dir;
  const std::string out = dir.path() + "/out";
  const auto r = run_opcert(std::string("run --plugin ") + TEST_CRASHY_PLUGIN + " --backend crashy --no-peer --suite " +
                            CRASHY_RUNAWAY_SUITE + " --max-memory 256M --out " + out + " --progress plain");
  EXPECT_EQ(r.exit_code, 1) << r.err;
  const auto results = read_jsonl(fs::path(out) / "results.jsonl");
  EXPECT_EQ(statuses(results, "crashy"),
            (std::map<std::string, std::string>{{"softmax.d10", "CRASHED"}, {"softmax.d2", "PASSED"}}));
  for (const auto& res : results) {
    if (res.at("case") != "softmax.d10") continue;
    const std::string message = res.at("message");
    EXPECT_NE(message.find("SIGSEGV"), std::string::npos) << message;
    EXPECT_NE(message.find("during the case, near its memory limit: "), std::string::npos) << message;
    EXPECT_NE(message.find("M mapped since its backend started, of the 256M it may map"), std::string::npos) << message;
  }
}

// A full disk under results.jsonl (here /dev/full): the stream says so once, the other outputs are
// written with every result, and the run exits 1.
TEST(RunEndToEnd, AFullDiskLosesNoResult) {
  TempDir dir;
  const fs::path out = fs::path(dir.path()) / "out";
  fs::create_directories(out);
  fs::create_symlink("/dev/full", out / "results.jsonl");
  const auto r = run_opcert(crashy_args(out.string()) + " --no-peer --filter 'd(2|4)$'");
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.err.find("results.jsonl"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("No space left on device"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("some outputs could not be written"), std::string::npos) << r.err;
  const json report = json::parse(read_text(out / "report.json"));
  EXPECT_EQ(report.at("results").size(), 2u) << "every measured result is in report.json";
}

TEST(RunEndToEnd, BadFilterIsOneLineAndExitTwo) {
  TempDir dir;
  const auto r = run_opcert(crashy_args(dir.path() + "/out") + " --filter 'softmax('");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(count_lines(r.err), 1u) << r.err;
  EXPECT_EQ(r.err.rfind("opcert: error: 'softmax(' is not a regular expression (ECMAScript", 0), 0u) << r.err;
  EXPECT_NE(r.err.find("(opcert run --filter); see opcert run --help"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir.path() + "/out")) << "nothing is created for bad usage";
}

TEST(RunEndToEnd, FilterMatchingNothingAndUnknownSuiteExitTwo) {
  TempDir dir;
  const auto none = run_opcert(crashy_args(dir.path() + "/out") + " --filter '^nothing$'");
  EXPECT_EQ(none.exit_code, 2) << none.err;
  EXPECT_NE(none.err.find("matches none of the 6 cases"), std::string::npos) << none.err;
  const auto unknown = run_opcert("run --suite no-such-suite --out " + dir.path() + "/o2");
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_NE(unknown.err.find("no-such-suite"), std::string::npos) << unknown.err;
  const auto impl = run_opcert(crashy_args(dir.path() + "/o3") + " --impl 'nope.*'");
  EXPECT_EQ(impl.exit_code, 2);
  EXPECT_NE(impl.err.find("--impl 'nope.*'"), std::string::npos) << impl.err;
}

TEST(RunEndToEnd, OutThatIsAFileExitsTwo) {
  TempDir dir;
  const std::string file = dir.write("taken", "x");
  const auto r = run_opcert(crashy_args(file));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--out '" + file + "' exists and is not a directory"), std::string::npos) << r.err;
}

TEST(RunEndToEnd, NoBackendExitsThree) {
  TempDir dir;
  const auto r = run_opcert("run --backend no_such_backend --suite " + std::string(CRASHY_SUITE) + " --out " +
                            dir.path() + "/out");
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("no_such_backend"), std::string::npos) << r.err;
}

TEST(RunEndToEnd, ABackendWithoutTheSuitesOpsExitsThree) {
  TempDir dir;
  // crashy has only softmax; smoke's gemm cases give it nothing to run.
  const auto r = run_opcert(std::string("run --plugin ") + TEST_CRASHY_PLUGIN +
                            " --backend crashy --suite smoke --filter '^gemm\\.' --out " + dir.path() + "/out");
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.err.find("no selected backend (crashy) has an implementation"), std::string::npos) << r.err;
}

// Coverage: each backend's (op, dtype) pairs of the plan it ran none of, and why, in the printed
// summary, report.json and summary.md; its skips grouped by class.
TEST(RunEndToEnd, CoverageNamesThePairsABackendDidNotRunAndWhy) {
  TempDir dir;
  const std::string out = dir.path() + "/out";
  const auto r = run_opcert(std::string("run --plugin ") + TEST_GOOD_PLUGIN + " --backend cpu,test_good --no-peer --suite " +
                            COVERAGE_SUITE + " --out " + out);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("coverage (op x dtype pairs of the plan with a case run):"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("  cpu: 2 of 3; not covered: gemm bf16 (too big for memory); skipped: 1 too big for memory\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("  test_good: 1 of 3; not covered: softmax fp16 (declined by the backend), gemm bf16 (no "
                       "implementation); skipped: 1 declined by the backend\n"),
            std::string::npos)
      << r.out;

  const json report = read_json(fs::path(out) / "report.json");
  ASSERT_EQ(report.at("plan").size(), 3u) << report.at("plan").dump();
  EXPECT_EQ(report.at("plan")[2], json({{"op", "gemm"}, {"dtype", "bf16"}, {"cases", 1}}));
  const json& good = report.at("coverage").at("test_good");
  EXPECT_EQ(good.at("plan_pairs"), 3);
  EXPECT_EQ(good.at("covered_pairs"), 1);
  EXPECT_EQ(good.at("missing"), json::parse(R"([{"op": "softmax", "dtype": "fp16", "cases": 1, "why": "declined"},
                                                {"op": "gemm", "dtype": "bf16", "cases": 1, "why": "not_implemented"}])"));
  EXPECT_EQ(good.at("skipped"), json({{"declined", 1}}));
  const json& cpu = report.at("coverage").at("cpu");
  EXPECT_EQ(cpu.at("covered_pairs"), 2);
  EXPECT_EQ(cpu.at("missing"), json::parse(R"([{"op": "gemm", "dtype": "bf16", "cases": 1, "why": "too_big"}])"));
  for (const auto& res : report.at("results")) {
    if (res.at("status") == "SKIPPED") {
      EXPECT_EQ(res.at("skip_reason"), res.at("backend") == "cpu" ? "too_big" : "declined") << res.dump();
    }
  }

  const std::string md = read_text(fs::path(out) / "summary.md");
  EXPECT_NE(md.find("| test_good | 1 of 3 | softmax fp16 (declined by the backend), gemm bf16 (no implementation) | 1 "
                    "declined by the backend |"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("### too big for memory\n\n- **SKIPPED** `cpu` `gemm`"), std::string::npos) << md;
  EXPECT_NE(md.find("### declined by the backend\n\n- **SKIPPED** `test_good` `softmax`"), std::string::npos) << md;
}

// Every answer of a worker carries its phases (schema 2.8): none negative, the five phases within
// the worker's total; a crash, which the runner reports, has none. --profile prints the profile
// after the summary table, and summary.md has it either way. No time's size is asserted.
TEST(RunEndToEnd, EachResultCarriesItsPhasesAndProfilePrintsThem) {
  TempDir dir;
  const std::string out = dir.path() + "/out";
  const auto r = run_opcert(crashy_args(out) + " --filter '^softmax\\.d(2|3|4\\.fp16)$' --profile");
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;  // the crash

  const auto results = read_jsonl(fs::path(out) / "results.jsonl");
  std::map<std::string, json> phases_of;  // backend/impl/case -> phases
  std::size_t timed = 0;
  for (const auto& res : results) {
    const std::string key = res.at("backend").get<std::string>() + "/" + res.at("impl").get<std::string>() + "/" +
                            res.at("case").get<std::string>();
    if (res.at("status") == "CRASHED") {
      EXPECT_FALSE(res.contains("phases")) << "the runner made this result: " << res.dump();
      continue;
    }
    ASSERT_TRUE(res.contains("phases")) << res.dump();
    const json& p = res.at("phases");
    ASSERT_EQ(p.size(), 8u) << p.dump();
    for (const auto& [name, seconds] : p.items()) EXPECT_GE(seconds.get<double>(), 0.0) << name << " in " << res.dump();
    const double sum = p.at("generate").get<double>() + p.at("copy").get<double>() + p.at("launch").get<double>() +
                       p.at("reference").get<double>() + p.at("check").get<double>();
    EXPECT_LE(sum, p.at("worker").get<double>() + 1e-9) << res.dump();
    phases_of[key] = p;
    ++timed;
  }
  EXPECT_EQ(timed, results.size() - 1) << "all but the crash";

  const json report = read_json(fs::path(out) / "report.json");
  ASSERT_EQ(report.at("results").size(), results.size());
  for (const auto& res : report.at("results")) {
    const std::string key = res.at("backend").get<std::string>() + "/" + res.at("impl").get<std::string>() + "/" +
                            res.at("case").get<std::string>();
    if (const auto it = phases_of.find(key); it != phases_of.end()) {
      EXPECT_EQ(res.value("phases", json()), it->second) << key;
    }
  }

  const auto profile = r.out.find("\nprofile (");
  ASSERT_NE(profile, std::string::npos) << r.out;
  EXPECT_GT(profile, r.out.find(" result(s) in ")) << "after the summary table: " << r.out;
  EXPECT_NE(r.out.find("  crashy: 2 job(s), ", profile), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("; 1 result(s) without phases", profile), std::string::npos) << r.out;
  for (const char* phase : {"generate", "copy", "launch", "reference", "check", "other", "startup", "ipc"})
    EXPECT_NE(r.out.find(std::string("\n    ") + phase + " ", profile), std::string::npos) << phase << " in " << r.out;
  EXPECT_NE(read_text(fs::path(out) / "summary.md").find("\n## Profile\n"), std::string::npos);

  const auto plain = run_opcert(crashy_args(dir.path() + "/plain") + " --no-peer --filter 'd2$'");
  EXPECT_EQ(plain.exit_code, 0) << plain.out << plain.err;
  EXPECT_EQ(plain.out.find("profile ("), std::string::npos) << "only with --profile: " << plain.out;
}

// A suite file in `dir` holding `cases` (the JSON array's items), for a test's own cases.
std::string write_suite(const std::string& dir, const std::string& description, const std::string& cases) {
  const std::string path = dir + "/suite.json";
  std::ofstream(path) << R"({"suite_format": "1.0", "description": ")" << description << R"(", "cases": [)" << cases
                      << "]}";
  return path;
}

// --timeout bounds the backend's part of a case, not the harness's: a case whose inputs,
// reference and check take longer than the timeout while the backend's copies and call take a
// fraction of it PASSES, where a timeout over the whole job made it TIMEOUT; the hang of the
// backend's call is still cut. The timeout is set between the two parts as a first run measured
// them (their ratio holds under load; the times do not).
TEST(RunEndToEnd, TheTimeoutBoundsTheBackendsPartNotTheHarnesss) {
  TempDir dir;
  const std::string suite =
      write_suite(dir.path(), "A case whose harness work outlasts the timeout.",
                  R"({"op": "softmax", "id": "softmax.big", "params": {"shape": [2, 8388608], "dtype": "fp32"}},
                     {"op": "softmax", "id": "softmax.hang", "params": {"shape": [5, 16], "dtype": "fp32"}})");
  const auto run = [&](const std::string& name, const std::string& filter, double timeout) {
    const std::string out = dir.path() + "/" + name;
    const auto r = run_opcert(std::string("run --plugin ") + TEST_CRASHY_PLUGIN + " --backend crashy --no-peer --suite " +
                              suite + " --filter '" + filter + "' --out " + out + " --timeout " + std::to_string(timeout) +
                              " --progress plain");
    return std::pair{r, read_jsonl(fs::path(out) / "results.jsonl")};
  };
  const auto [measure, measured] = run("measure", "big", 600);
  ASSERT_EQ(measured.size(), 1u) << measure.out << measure.err;
  ASSERT_EQ(measured[0].at("status"), "PASSED") << measured[0].dump();
  const json& p = measured[0].at("phases");
  const double backend = p.at("copy").get<double>() + p.at("launch").get<double>();
  const double harness = p.at("generate").get<double>() + p.at("reference").get<double>() + p.at("check").get<double>();
  if (harness < 4 * backend)
    GTEST_SKIP() << "the harness's part (" << harness << " s) is not 4x the backend's (" << backend
                 << " s) here: no timeout between them with a margin of 2 each way";
  const double timeout = std::max(0.5, backend * std::sqrt(harness / backend));

  const auto [r, results] = run("out", "", timeout);
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;  // the hang
  const std::map<std::string, std::string> expected{{"softmax.big", "PASSED"}, {"softmax.hang", "TIMEOUT"}};
  EXPECT_EQ(statuses(results, "crashy"), expected) << "timeout " << timeout << " s; " << r.out << r.err;
}

// A backend and its peer side by side share a big case's inputs and reference (session/execution/
// input_cache.h): one worker makes and writes each, the other reads it, and the results are those
// of a run that made them alone (every metric equal), the small case made by each.
TEST(RunEndToEnd, ABackendAndItsPeerShareABigCasesInputsAndReferenceAndGetTheSameResults) {
  TempDir dir;
  const std::string suite =
      write_suite(dir.path(), "Big cases whose inputs the workers share.",
                  R"({"op": "softmax", "id": "softmax.big", "params": {"shape": [2, 8388608], "dtype": "fp32"}},
                     {"op": "softmax", "id": "softmax.small", "params": {"shape": [4, 64], "dtype": "fp32"}})");
  const auto run = [&](const std::string& name, const std::string& peer) {
    const auto r = run_opcert("run --backend cpu " + peer + " --suite " + suite + " --out " + dir.path() + "/" + name +
                              " --progress plain");
    EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
    std::map<std::string, json> rows;
    for (const auto& res : read_jsonl(fs::path(dir.path()) / name / "results.jsonl"))
      if (res.at("backend") == "cpu") rows[res.at("case").get<std::string>()] = res;
    return rows;
  };
  const auto shared = run("shared", "");
  const auto alone = run("alone", "--no-peer");
  ASSERT_EQ(shared.size(), 2u);
  ASSERT_EQ(alone.size(), 2u);
  for (const auto& [id, res] : alone) {
    EXPECT_EQ(shared.at(id).at("status"), "PASSED") << shared.at(id).dump();
    EXPECT_EQ(shared.at(id).at("metrics"), res.at("metrics")) << id;
  }
  std::string logs;
  for (const auto& entry : fs::directory_iterator(fs::path(dir.path()) / "shared" / "logs")) logs += read_text(entry.path());
  EXPECT_NE(logs.find("case 'softmax.big': inputs shared in the run's cache"), std::string::npos) << logs;
  EXPECT_NE(logs.find("case 'softmax.big': inputs read from the run's cache"), std::string::npos) << logs;
  EXPECT_NE(logs.find("case 'softmax.big': reference shared in the run's cache"), std::string::npos) << logs;
  EXPECT_NE(logs.find("case 'softmax.big': reference read from the run's cache"), std::string::npos) << logs;
  EXPECT_EQ(logs.find("softmax.small': inputs"), std::string::npos) << "too small to share: " << logs;
}

}  // namespace
}  // namespace opcert::test
