// `opcert certify` and `opcert verify` end to end: the CPU backend certified on plan basic with a
// real Ed25519 key (OpenSSL), the bundle verified, every kind of file in it tampered with one byte
// and named by verify, and verdicts re-run: the paced test plugin certified while made wrong on
// one case must fail its certificate, and its bundle's rerun (without the fault) must not
// reproduce.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>

#include "bench/report_files.h"
#include "cli/run_opcert.h"

namespace opcert::test {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

// Flips the lowest bit of the byte in the middle of the file.
void flip_one_byte(const fs::path& file) {
  std::fstream f(file, std::ios::in | std::ios::out | std::ios::binary);
  const auto size = static_cast<std::streamoff>(fs::file_size(file));
  f.seekg(size / 2);
  char c = 0;
  f.get(c);
  f.seekp(size / 2);
  f.put(static_cast<char>(c ^ 0x01));
}

// A plan of one suite under one seed, failing on FAILED, ERROR, CRASHED and TIMEOUT, in the suite's
// temporary folder as <name>-plan.json.
std::string write_plan(const std::string& dir, const std::string& name, const std::string& suite, int seed) {
  const std::string plan = dir + "/" + name + "-plan.json";
  std::ofstream(plan) << R"({"plan_format": "1.0", "name": ")" << name << R"(", "suites": [{"suite": ")" << suite
                      << R"(", "seed": )" << seed << R"(}], "fail_statuses": ["FAILED", "ERROR", "CRASHED", "TIMEOUT"]})";
  return plan;
}

// SHA256SUMS written again over the bundle's files, as whoever edits an unsigned bundle can.
void rehash(const std::string& bundle) {
  ASSERT_EQ(std::system(("cd '" + bundle +
                         "' && find . -type f ! -name SHA256SUMS ! -name SHA256SUMS.sig -printf '%P\\n' | LC_ALL=C sort | "
                         "xargs -d '\\n' sha256sum > SHA256SUMS")
                            .c_str()),
            0);
}

std::vector<std::string> lines_of(const std::string& file) {
  std::ifstream in(file);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

void write_lines(const std::string& file, const std::vector<std::string>& lines) {
  std::ofstream out(file, std::ios::trunc);
  for (const auto& l : lines) out << l << "\n";
}

// The index of the first line of results.jsonl recording a PASSED result of the CPU backend.
std::size_t first_cpu_pass(const std::vector<std::string>& lines) {
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const json r = json::parse(lines[i]);
    if (r.at("backend") == "cpu" && r.at("status") == "PASSED") return i;
  }
  return lines.size();
}

class Certify : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir();
    const std::string keys = dir_->path() + "/vendor";
    ASSERT_EQ(std::system(("openssl genpkey -algorithm ed25519 -out " + keys + ".pem 2>/dev/null && openssl pkey -in " +
                           keys + ".pem -pubout -out " + keys + ".pub 2>/dev/null")
                              .c_str()),
              0)
        << "openssl is needed (Debian: openssl)";
    bundle_ = dir_->path() + "/cpu-basic";
    certify_ = run_opcert("certify --backend cpu --plan basic --out " + bundle_ + " --sign-key " + keys + ".pem");
  }
  static void TearDownTestSuite() { delete dir_; }
  static std::string pub() { return dir_->path() + "/vendor.pub"; }
  // A copy of the bundle made unsigned (no signature, the manifest's `signing` null), re-hashed.
  static std::string unsigned_copy(const std::string& name) {
    const std::string copy = dir_->path() + "/" + name;
    fs::remove_all(copy);
    fs::copy(bundle_, copy, fs::copy_options::recursive);
    fs::remove(copy + "/SHA256SUMS.sig");
    json m = read_json(copy + "/manifest.json");
    m["signing"] = nullptr;
    std::ofstream(copy + "/manifest.json", std::ios::trunc) << m.dump(2) << "\n";
    rehash(copy);
    return copy;
  }

  static TempDir* dir_;
  static std::string bundle_;
  static CommandResult certify_;
};
TempDir* Certify::dir_ = nullptr;
std::string Certify::bundle_;
CommandResult Certify::certify_;

TEST_F(Certify, TheCpuBackendIsCertifiedOnPlanBasicAndTheBundleVerifies) {
  ASSERT_EQ(certify_.exit_code, 0) << certify_.out << certify_.err;
  EXPECT_NE(certify_.out.find("cpu CERTIFIED on plan basic"), std::string::npos) << certify_.out;
  const json m = read_json(bundle_ + "/manifest.json");
  EXPECT_EQ(m.at("kind"), "opcert-certificate");
  EXPECT_EQ(m.at("verdict"), "certified");
  EXPECT_EQ(m.at("backend").at("name"), "cpu");
  EXPECT_EQ(m.at("plan").at("name"), "basic");
  EXPECT_EQ(m.at("plan").at("sha256").get<std::string>().size(), 64u);
  ASSERT_EQ(m.at("suites").size(), 1u);
  EXPECT_EQ(m.at("suites")[0].at("suite"), "smoke");
  EXPECT_EQ(m.at("suites")[0].at("sha256").get<std::string>().size(), 64u);
  EXPECT_GT(m.at("results").get<int>(), 100);
  EXPECT_EQ(m.at("failing_results"), 0);
  EXPECT_TRUE(m.at("opcert").at("abi").is_string());
  EXPECT_TRUE(m.at("machine").at("cpu").is_object());
  // Without --devices: the backend's first device, on this host.
  ASSERT_EQ(m.at("devices").size(), 1u) << m.at("devices").dump();
  EXPECT_EQ(m.at("devices")[0].at("index"), 0);
  EXPECT_EQ(m.at("devices")[0].at("name"), "host CPU");
  EXPECT_EQ(m.at("devices")[0].at("host"), m.at("machine").at("host"));
  EXPECT_EQ(m.at("signing").at("algorithm"), "ed25519");
  // Every op of the smoke suite has the CPU backend's results.
  for (const char* op : {"gemm", "gemm_fp8", "gemm_int8", "attention", "rms_norm", "layer_norm", "rope", "softmax", "quantize"})
    EXPECT_TRUE(m.at("coverage").at(op).is_object()) << op << ": " << m.at("coverage").dump();
  EXPECT_TRUE(fs::exists(bundle_ + "/reports/smoke.seed1/report.json"));

  const auto v = run_opcert("verify " + bundle_ + " --pubkey " + pub());
  EXPECT_EQ(v.exit_code, 0) << v.out << v.err;
  EXPECT_NE(v.out.find(": valid"), std::string::npos) << v.out;
  // The checksum list is sha256sum's: a customer can check it without opcert.
  EXPECT_EQ(std::system(("cd " + bundle_ + " && sha256sum --quiet -c SHA256SUMS >/dev/null 2>&1").c_str()), 0);
}

TEST_F(Certify, EveryOneByteTamperIsNamed) {
  ASSERT_EQ(certify_.exit_code, 0) << certify_.out << certify_.err;
  for (const char* name : {"manifest.json", "plan.json", "summary.md", "SHA256SUMS", "SHA256SUMS.sig",
                                 "reports/smoke.seed1/report.json", "reports/smoke.seed1/results.jsonl",
                                 "reports/smoke.seed1/junit.xml", "reports/smoke.seed1/summary.md",
                                 "reports/smoke.seed1/logs/cpu.worker.log"}) {
    const std::string file = name;
    const std::string copy = dir_->path() + "/tampered";
    fs::remove_all(copy);
    fs::copy(bundle_, copy, fs::copy_options::recursive);
    ASSERT_TRUE(fs::exists(copy + "/" + file)) << file;
    flip_one_byte(copy + "/" + file);
    const auto v = run_opcert("verify " + copy + " --pubkey " + pub());
    EXPECT_EQ(v.exit_code, 1) << file << "\n" << v.out << v.err;
    EXPECT_NE(v.out.find("INVALID: " + file), std::string::npos) << file << "\n" << v.out;
  }
  // A file added to the bundle, and one taken away.
  const std::string copy = dir_->path() + "/tampered";
  fs::remove_all(copy);
  fs::copy(bundle_, copy, fs::copy_options::recursive);
  std::ofstream(copy + "/reports/extra.json") << "{}";
  fs::remove(copy + "/summary.md");
  const auto v = run_opcert("verify " + copy);
  EXPECT_EQ(v.exit_code, 1) << v.out;
  EXPECT_NE(v.out.find("INVALID: reports/extra.json: not in SHA256SUMS"), std::string::npos) << v.out;
  EXPECT_NE(v.out.find("INVALID: summary.md: listed in SHA256SUMS but missing"), std::string::npos) << v.out;
}

TEST_F(Certify, AnotherKeyOrAnUnsignedBundleIsNotTheVendors) {
  ASSERT_EQ(certify_.exit_code, 0);
  const std::string other = dir_->path() + "/other";
  ASSERT_EQ(std::system(("openssl genpkey -algorithm ed25519 -out " + other + ".pem 2>/dev/null && openssl pkey -in " +
                         other + ".pem -pubout -out " + other + ".pub 2>/dev/null")
                            .c_str()),
            0);
  const auto v = run_opcert("verify " + bundle_ + " --pubkey " + other + ".pub");
  EXPECT_EQ(v.exit_code, 1) << v.out;
  EXPECT_NE(v.out.find("does not verify"), std::string::npos) << v.out;
  EXPECT_NE(v.out.find("signed by key"), std::string::npos) << v.out;
  const std::string copy = dir_->path() + "/unsigned";
  fs::remove_all(copy);
  fs::copy(bundle_, copy, fs::copy_options::recursive);
  fs::remove(copy + "/SHA256SUMS.sig");
  const auto u = run_opcert("verify " + copy + " --pubkey " + pub());
  EXPECT_EQ(u.exit_code, 1) << u.out;
  EXPECT_NE(u.out.find("INVALID: SHA256SUMS.sig: missing"), std::string::npos) << u.out;
}

TEST_F(Certify, AnUnsignedBundleSaysSoAndMustAgreeWithItself) {
  ASSERT_EQ(certify_.exit_code, 0);
  const auto ok = run_opcert("verify " + unsigned_copy("unsigned-clean"));
  EXPECT_EQ(ok.exit_code, 0) << ok.out << ok.err;
  EXPECT_NE(ok.out.find(": valid (integrity only: unsigned)"), std::string::npos) << ok.out;
  const auto no_key = run_opcert("verify " + bundle_);
  EXPECT_EQ(no_key.exit_code, 0) << no_key.out << no_key.err;
  EXPECT_NE(no_key.out.find(": valid (integrity only: signature not checked: no --pubkey)"), std::string::npos)
      << no_key.out;

  const std::string results = "/reports/smoke.seed1/results.jsonl", report = "/reports/smoke.seed1/report.json";
  const auto original = lines_of(bundle_ + results);
  const std::size_t at = first_cpu_pass(original);
  ASSERT_LT(at, original.size());
  const json flipped = json::parse(original[at]);
  const std::string id = flipped.at("case").get<std::string>() + " (" + flipped.at("impl").get<std::string>() + ")";
  // verify of an unsigned copy of the bundle edited by `edit`, SHA256SUMS written again after it:
  // invalid, naming each line of `named`.
  const auto expect_refused = [&](const std::string& name, const std::function<void(const std::string&)>& edit,
                                  const std::vector<std::string>& named) {
    const std::string copy = unsigned_copy(name);
    edit(copy);
    rehash(copy);
    const auto v = run_opcert("verify " + copy);
    EXPECT_EQ(v.exit_code, 1) << name << "\n" << v.out << v.err;
    EXPECT_NE(v.out.find("invalid ("), std::string::npos) << name << "\n" << v.out;
    for (const auto& line : named) EXPECT_NE(v.out.find(line), std::string::npos) << name << ": " << line << "\n" << v.out;
    return copy;
  };
  const auto with_lines = [&](std::vector<std::string> lines) {
    return [lines, results](const std::string& copy) { write_lines(copy + results, lines); };
  };

  // The issue's attack: a result made FAILED in results.jsonl, SHA256SUMS re-hashed, no signature.
  auto attacked = original;
  attacked[at] = [&] {
    json r = flipped;
    r["status"] = "FAILED";
    return r.dump();
  }();
  const std::string copy = expect_refused(
      "attack", with_lines(attacked),
      {"INVALID: reports/smoke.seed1/report.json: " + id + " is PASSED; results.jsonl records it FAILED",
       "INVALID: manifest.json: verdict \"certified\"; results.jsonl gives \"not certified\"",
       "INVALID: manifest.json: suite smoke (seed 1): failing 0; results.jsonl gives 1",
       "INVALID: summary.md: says '**Certified**'", "integrity only: unsigned)"});
  // Nothing is re-run on a bundle already invalid.
  const auto rerun = run_opcert("verify " + copy + " --rerun 2 --rerun-seed 3");
  EXPECT_EQ(rerun.exit_code, 1) << rerun.out;
  EXPECT_NE(rerun.out.find("no case re-run"), std::string::npos) << rerun.out;

  // The same flip in report.json alone, and then in its summary's counts too.
  const auto flip_report = [&](bool summary_too) {
    return [&, summary_too](const std::string& dir) {
      json doc = read_json(dir + report);
      for (auto& r : doc.at("results"))
        if (r.at("case") == flipped.at("case") && r.at("impl") == flipped.at("impl")) r["status"] = "FAILED";
      if (summary_too) {
        json& counts = doc.at("summary").at("backends").at("cpu").at("counts");
        counts["PASSED"] = counts.at("PASSED").get<int>() - 1;
        counts["FAILED"] = counts.at("FAILED").get<int>() + 1;
      }
      std::ofstream(dir + report, std::ios::trunc) << doc.dump(2) << "\n";
    };
  };
  const std::string report_flip =
      "INVALID: reports/smoke.seed1/report.json: " + id + " is FAILED; results.jsonl records it PASSED";
  expect_refused("report-flip", flip_report(false), {report_flip});
  expect_refused("report-summary", flip_report(true),
                 {report_flip, "INVALID: reports/smoke.seed1/report.json: summary of cpu: says PASSED "});
  // A line of results.jsonl dropped, and one written twice.
  auto dropped = original;
  dropped.erase(dropped.begin() + static_cast<std::ptrdiff_t>(at));
  expect_refused("dropped", with_lines(dropped),
                 {"INVALID: reports/smoke.seed1/results.jsonl: has no " + id + "; report.json has it PASSED"});
  auto twice = original;
  twice.push_back(original[at]);
  expect_refused("twice", with_lines(twice), {"INVALID: reports/smoke.seed1/results.jsonl: " + id + " is recorded 2 times"});
  // One more PASSED in the smoke row of the bundle's summary.md.
  expect_refused(
      "summary-count",
      [](const std::string& dir) {
        auto lines = lines_of(dir + "/summary.md");
        for (auto& l : lines)
          if (l.starts_with("| smoke | 1 | ")) {
            const auto passed = l.find(" PASSED");
            const auto start = l.rfind(' ', passed - 1) + 1;
            l = l.substr(0, start) + std::to_string(std::stoi(l.substr(start, passed - start)) + 1) + l.substr(passed);
          }
        write_lines(dir + "/summary.md", lines);
      },
      {"INVALID: summary.md: suite smoke (seed 1): says '| smoke | 1 | "});
}

TEST_F(Certify, RerunReproducesRecordedVerdicts) {
  ASSERT_EQ(certify_.exit_code, 0);
  const auto v = run_opcert("verify " + bundle_ + " --pubkey " + pub() + " --rerun 4 --rerun-seed 11");
  EXPECT_EQ(v.exit_code, 0) << v.out << v.err;
  EXPECT_NE(v.out.find("4 reproduced their verdict"), std::string::npos) << v.out;
  EXPECT_NE(v.out.find("--rerun-seed 11"), std::string::npos) << v.out;
}

TEST_F(Certify, SampledCasesReproduceOnRerun) {
  // The model suites check a sample of each output; a rerun must reproduce such a verdict too.
  const std::string plan = write_plan(dir_->path(), "sampled", SAMPLED_SUITE, 5);
  const std::string bundle = dir_->path() + "/sampled";
  const auto c = run_opcert("certify --backend cpu --no-peer --plan " + plan + " --out " + bundle);
  ASSERT_EQ(c.exit_code, 0) << c.out << c.err;
  const json report = read_json(bundle + "/reports/sampled_suite.seed5/report.json");
  ASSERT_EQ(report.at("results").size(), 2u);
  for (const auto& r : report.at("results")) EXPECT_TRUE(r.at("sampled").get<bool>()) << r.dump();
  const auto v = run_opcert("verify " + bundle + " --rerun 2");
  EXPECT_EQ(v.exit_code, 0) << v.out << v.err;
  EXPECT_NE(v.out.find("2 reproduced their verdict"), std::string::npos) << v.out;
}

// A certificate states its coverage: the plan's op x dtype pairs it certifies, and why not each other one.
TEST(CertifyCoverage, TheCertificateNamesThePairsOfThePlanItDoesNotCover) {
  TempDir dir;
  const std::string plan = write_plan(dir.path(), "coverage", COVERAGE_SUITE, 1);
  const std::string bundle = dir.path() + "/good";
  const auto c = run_opcert(std::string("certify --plugin ") + TEST_GOOD_PLUGIN + " --backend test_good --no-peer --plan " +
                            plan + " --out " + bundle);
  ASSERT_EQ(c.exit_code, 0) << c.out << c.err;
  EXPECT_NE(c.out.find("certified 1 of 3 op x dtype pairs of the plan"), std::string::npos) << c.out;
  const json m = read_json(bundle + "/manifest.json");
  EXPECT_EQ(m.at("pair_coverage").at("certified"), 1);
  EXPECT_EQ(m.at("pair_coverage").at("of"), 3);
  EXPECT_EQ(m.at("pair_coverage").at("missing"),
            json::parse(R"([{"op": "softmax", "dtype": "fp16", "cases": 1, "why": "declined"},
                            {"op": "gemm", "dtype": "bf16", "cases": 1, "why": "not_implemented"}])"));
  EXPECT_NE(read_text(bundle + "/summary.md")
                .find("Certified 1 of 3 op x dtype pairs of the plan; not certified for: softmax fp16 (declined by the "
                      "backend), gemm bf16 (no implementation).\n"),
            std::string::npos)
      << read_text(bundle + "/summary.md");
}

TEST_F(Certify, APluginMadeWrongIsNotCertifiedAndItsRerunDoesNotReproduce) {
  const std::string plan = write_plan(dir_->path(), "paced", PACED_SUITE, 3);
  const std::string bundle = dir_->path() + "/paced";
  const std::string plugin = TEST_PACED_PLUGIN;
  const auto c = run_opcert("certify --plugin " + plugin + " --backend paced --no-peer --plan " + plan + " --out " + bundle,
                            "OPCERT_TEST_PACED_WRONG_ROWS=30");
  EXPECT_EQ(c.exit_code, 1) << c.out << c.err;
  EXPECT_NE(c.out.find("paced NOT CERTIFIED"), std::string::npos) << c.out;
  const json m = read_json(bundle + "/manifest.json");
  EXPECT_EQ(m.at("verdict"), "not certified");
  EXPECT_EQ(m.at("failing_results"), 4);  // rows30 on each of the four paced keys
  EXPECT_EQ(m.at("backend").at("sha256").get<std::string>().size(), 64u);
  EXPECT_EQ(m.at("coverage").at("softmax").at("FAILED"), 4);
  // The bundle itself is intact; re-run here without the fault (all 12 results), the wrong cases now pass.
  const auto v = run_opcert("verify " + bundle + " --plugin " + plugin + " --rerun 12 --rerun-seed 1");
  EXPECT_EQ(v.exit_code, 1) << v.out << v.err;
  EXPECT_NE(v.out.find("recorded FAILED, got PASSED"), std::string::npos) << v.out;
  // The reruns' reports and logs stay for a look, in a folder of this verify's own: a second verify
  // with the same seed (another job at the same time) gets another folder and leaves this one be.
  const auto rerun_folder = [](const std::string& out) {
    const std::string mark = "(their reports and logs: ";
    const auto at = out.find(mark);
    return at == std::string::npos ? std::string() : out.substr(at + mark.size(), out.find(')', at) - at - mark.size());
  };
  const std::string first = rerun_folder(v.out);
  ASSERT_FALSE(first.empty()) << v.out;
  bool has_log = false;
  for (const auto& e : fs::directory_iterator(first)) has_log = has_log || e.path().extension() == ".log";
  EXPECT_TRUE(has_log) << first;
  const auto again = run_opcert("verify " + bundle + " --plugin " + plugin + " --rerun 12 --rerun-seed 1");
  EXPECT_EQ(again.exit_code, 1) << again.out << again.err;
  const std::string second = rerun_folder(again.out);
  EXPECT_NE(second, first);
  EXPECT_TRUE(fs::exists(first)) << first;
  fs::remove_all(first);
  if (!second.empty()) fs::remove_all(second);
  // A library other than the certified one is refused.
  const auto other = run_opcert("verify " + bundle + " --plugin " + std::string(TEST_TIMED_PLUGIN));
  EXPECT_EQ(other.exit_code, 1) << other.out;
  EXPECT_NE(other.out.find("is not the certified library's"), std::string::npos) << other.out;
}

TEST_F(Certify, EveryDeviceIsCertifiedAndABadOneFailsTheCertificate) {
  const std::string plan = write_plan(dir_->path(), "devices", DEVICES_SUITE, 1);
  const std::string bundle = dir_->path() + "/devices";
  const auto c = run_opcert("certify --plugin " + std::string(TEST_DEVICES_PLUGIN) + " --backend devices --no-peer --plan " +
                                plan + " --devices all --out " + bundle,
                            "OPCERT_TEST_BAD_DEVICE=2");
  EXPECT_EQ(c.exit_code, 1) << c.out << c.err;
  const json m = read_json(bundle + "/manifest.json");
  EXPECT_EQ(m.at("verdict"), "not certified");
  EXPECT_EQ(m.at("results"), 6);          // 2 cases on each of 3 devices
  EXPECT_EQ(m.at("failing_results"), 2);  // device 2's
  ASSERT_EQ(m.at("devices").size(), 3u) << m.at("devices").dump();
  for (int d = 0; d < 3; ++d) {
    const json& device = m.at("devices")[d];
    EXPECT_EQ(device.at("name"), "test device " + std::to_string(d));
    // Each device by its identity (ABI 1.4), with its own verdict.
    EXPECT_EQ(device.at("uuid"), "TEST-DEVICE-" + std::to_string(d)) << device.dump();
    EXPECT_EQ(device.at("verdict"), d == 2 ? "fail" : "pass") << device.dump();
    EXPECT_EQ(device.at("failing_results"), d == 2 ? 2 : 0) << device.dump();
    EXPECT_TRUE(device.at("serial").is_null()) << "no GPU of that UUID on this machine: " << device.dump();
  }
  EXPECT_EQ(m.at("devices")[0].at("pci_bus_id"), "0000:00:00.0");
  EXPECT_TRUE(m.at("devices")[2].at("pci_bus_id").is_null()) << "unknown: never made up";
  // The verdict names the failing device, by index and UUID, and the ones that passed.
  EXPECT_EQ(m.at("reason"),
            "2 of 6 results of devices have a status the plan fails; failing on device 2 (UUID TEST-DEVICE-2); passing "
            "on device 0 (UUID TEST-DEVICE-0), device 1 (UUID TEST-DEVICE-1)");
  const std::string summary = read_text(bundle + "/summary.md");
  EXPECT_NE(summary.find(": device 2 (test device 2, UUID TEST-DEVICE-2, PCI unknown, serial unknown: **2 failing**)"),
            std::string::npos)
      << summary;
  EXPECT_NE(summary.find("failing on device 2 (UUID TEST-DEVICE-2)"), std::string::npos) << summary;
  const auto v = run_opcert("verify " + bundle);
  EXPECT_EQ(v.exit_code, 0) << "the bundle itself is intact\n" << v.out << v.err;

  // Every case reruns on the device of its UUID: device 2's failures reproduce only there.
  const auto rerun = run_opcert("verify " + bundle + " --rerun 6 --rerun-seed 3", "OPCERT_TEST_BAD_DEVICE=2");
  EXPECT_EQ(rerun.exit_code, 0) << rerun.out << rerun.err;
  EXPECT_NE(rerun.out.find("re-ran 6 case(s) chosen with --rerun-seed 3: 6 reproduced their verdict"), std::string::npos)
      << rerun.out;
  EXPECT_NE(rerun.out.find("FAILED as recorded"), std::string::npos) << rerun.out;

  // A machine without that device says so in one line per device and reruns the rest: exit 3.
  const auto absent = run_opcert("verify " + bundle + " --rerun 6 --rerun-seed 3",
                                 "OPCERT_TEST_BAD_DEVICE=2 OPCERT_TEST_DEVICES=2");
  EXPECT_EQ(absent.exit_code, 3) << absent.out << absent.err;
  EXPECT_NE(absent.out.find("cannot rerun: 2 sampled case(s) were recorded on device 2 (UUID TEST-DEVICE-2) of host "),
            std::string::npos)
      << absent.out;
  EXPECT_NE(absent.out.find("which backend 'devices' does not have here (its devices here: 0: TEST-DEVICE-0, 1: "
                            "TEST-DEVICE-1)"),
            std::string::npos)
      << absent.out;
  EXPECT_NE(absent.out.find("re-ran 4 case(s) chosen with --rerun-seed 3: 4 reproduced their verdict"), std::string::npos)
      << absent.out;
  EXPECT_EQ(absent.out.find("INVALID"), std::string::npos) << "the bundle is not at fault\n" << absent.out;

  // A copy whose manifest passes the bad device, re-hashed, disagrees with its own record.
  const std::string forged = dir_->path() + "/devices-forged";
  fs::copy(bundle, forged, fs::copy_options::recursive);
  json fm = read_json(forged + "/manifest.json");
  fm["devices"][2]["verdict"] = "pass";
  fm["devices"][2]["failing_results"] = 0;
  std::ofstream(forged + "/manifest.json", std::ios::trunc) << fm.dump(2) << "\n";
  rehash(forged);
  const auto f = run_opcert("verify " + forged);
  EXPECT_EQ(f.exit_code, 1) << f.out << f.err;
  EXPECT_NE(f.out.find("manifest.json: device 2 of host "), std::string::npos) << f.out;
  EXPECT_NE(f.out.find(": failing_results 0, verdict \"pass\"; results.jsonl gives 2, fail"), std::string::npos) << f.out;
}

TEST_F(Certify, UnusableInputIsAOneLineUsageError) {
  const std::string twice = dir_->path() + "/twice.json";
  std::ofstream(twice) << R"({"plan_format": "1.0", "name": "twice", "suites": [{"suite": "smoke"},
                              {"suite": "smoke", "seed": 1}], "fail_statuses": ["FAILED"]})";
  for (const std::string& args : {std::string("verify /nonexistent/bundle"), "verify " + dir_->path(),
                                 std::string("certify --backend cpu --plan no-such-plan --out ") + dir_->path() + "/x1",
                                 "certify --backend '*' --plan basic --out " + dir_->path() + "/x2",
                                 "certify --backend cpu --plan basic --out " + bundle_,
                                 "certify --backend cpu --plan " + twice + " --out " + dir_->path() + "/x4",
                                 "certify --backend cpu --plan basic --sign-key " + pub() + " --out " + dir_->path() + "/x3"}) {
    const auto r = run_opcert(args);
    EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.out << r.err;
    EXPECT_NE(r.err.find("opcert: error:"), std::string::npos) << args << "\n" << r.err;
  }
}

}  // namespace
}  // namespace opcert::test
