// `opcert golden export` and `opcert run --golden` end to end: the smoke suite exported by this
// build (with LibTorch), checked as an outside safetensors reader would, then the CPU backend run
// against it here with the verdicts and metrics of LibTorch's own references, and on the build
// without LibTorch (build/asan: clang, ASan and UBSan) with the same verdicts; a tampered file, a
// changed input, a missing suite and a set too large are each refused saying what and where.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <map>

#include "bench/report_files.h"
#include "cli/run_opcert.h"
#include "loader/file_digest.h"

namespace opcert::test {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

// status and metrics of every result, by case and implementation
std::map<std::string, json> verdicts(const std::string& report) {
  std::map<std::string, json> out;
  const json doc = read_json(report);
  for (const json& r : doc.at("results"))
    out[r.at("case").get<std::string>() + " " + r.at("impl").get<std::string>()] = {{"status", r.at("status")},
                                                                                     {"metrics", r.at("metrics")}};
  return out;
}

// status and elements checked of every result: what a build by another compiler must agree on. Its
// CPU backend's own rounding differs (clang's at -O1 against GCC's at -O2: vector exp, summation
// order), so its metrics are close to, not equal to, this build's; equal metrics are asked of the
// same build judged against the set (ARunAgainstTheSetGivesLibTorchsVerdictsAndMetrics).
std::map<std::string, json> statuses(const std::string& report) {
  std::map<std::string, json> out;
  for (auto& [key, v] : verdicts(report)) {
    json checked = json::array();
    for (const json& m : v.at("metrics")) checked.push_back(m.at("checked"));
    out[key] = {{"status", v.at("status")}, {"checked", checked}};
  }
  return out;
}

bool have_notorch() { return fs::exists(NOTORCH_BINARY); }
#define REQUIRE_NOTORCH()                                                                                              \
  if (!have_notorch())                                                                                                 \
  GTEST_SKIP() << "no build without LibTorch at " NOTORCH_BINARY ": `./opcert test` builds it "                        \
                  "(cmake --preset asan && cmake --build --preset asan)"

class Golden : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir();
    set_ = dir_->path() + "/golden";
    export_ = run_opcert("golden export --suite smoke --out " + set_);
    with_libtorch_ = run_opcert("run --backend cpu --no-peer --progress plain --out " + dir_->path() + "/libtorch");
  }
  static void TearDownTestSuite() { delete dir_; }
  static std::string out(const std::string& name) { return dir_->path() + "/" + name; }

  static TempDir* dir_;
  static std::string set_;
  static CommandResult export_, with_libtorch_;
};
TempDir* Golden::dir_ = nullptr;
std::string Golden::set_;
CommandResult Golden::export_, Golden::with_libtorch_;

TEST_F(Golden, ExportSaysTheSizeFirstAndWritesAValidSafetensorsSet) {
  ASSERT_EQ(export_.exit_code, 0) << export_.out << export_.err;
  const auto size_line = export_.out.find("at most");
  const auto wrote_line = export_.out.find("wrote");
  ASSERT_NE(size_line, std::string::npos) << export_.out;
  ASSERT_NE(wrote_line, std::string::npos) << export_.out;
  EXPECT_LT(size_line, wrote_line) << "the size is said before the files are written";
  const json m = read_json(set_ + "/manifest.json");
  EXPECT_EQ(m.at("format"), "opcert-golden-set");
  EXPECT_NE(m.at("reference").get<std::string>().find("LibTorch"), std::string::npos);
  ASSERT_EQ(m.at("suites").size(), 1u);
  EXPECT_EQ(m.at("suites")[0].at("suite"), "smoke");
  EXPECT_EQ(m.at("suites")[0].at("cases").size(), verdicts(out("libtorch/report.json")).size())
      << "one file per case the CPU backend ran (one implementation each)";
  const std::string check = std::string("python3 ") + CHECK_SAFETENSORS + " " + set_ + " > " + out("check.log") + " 2>&1";
  EXPECT_EQ(std::system(check.c_str()), 0) << std::ifstream(out("check.log")).rdbuf();
}

TEST_F(Golden, ARunAgainstTheSetGivesLibTorchsVerdictsAndMetrics) {
  ASSERT_EQ(with_libtorch_.exit_code, 0) << with_libtorch_.err;
  const auto r = run_opcert("run --backend cpu --no-peer --progress plain --golden " + set_ + " --out " + out("golden"));
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(verdicts(out("golden/report.json")), verdicts(out("libtorch/report.json")));
  const json report = read_json(out("golden/report.json"));
  EXPECT_NE(report.at("environment").at("libraries").at("golden_set").get<std::string>().find(set_), std::string::npos);
  EXPECT_NE(report.at("results")[0].at("repro").get<std::string>().find("--golden " + set_), std::string::npos);
}

TEST_F(Golden, TheBuildWithoutLibTorchPassesTheSetWithTheSameVerdicts) {
  REQUIRE_NOTORCH();
  const auto version = run_opcert_binary(NOTORCH_BINARY, "version");
  ASSERT_NE(version.out.find("LibTorch off"), std::string::npos) << version.out;
  const auto r = run_opcert_binary(NOTORCH_BINARY, "run --progress plain --golden " + set_ + " --out " + out("notorch"));
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(statuses(out("notorch/report.json")), statuses(out("libtorch/report.json")));

  const auto bare = run_opcert_binary(NOTORCH_BINARY, "run --out " + out("bare"));
  EXPECT_EQ(bare.exit_code, 2);
  EXPECT_NE(bare.err.find("built without LibTorch"), std::string::npos) << bare.err;
  EXPECT_NE(bare.err.find("--golden DIR"), std::string::npos) << bare.err;
  const auto exp = run_opcert_binary(NOTORCH_BINARY, "golden export --suite smoke --out " + out("nowhere"));
  EXPECT_EQ(exp.exit_code, 2);
  EXPECT_FALSE(fs::exists(out("nowhere")));
}

TEST_F(Golden, TheBuildWithoutLibTorchCertifiesAgainstTheSetAndTheBundleVerifies) {
  REQUIRE_NOTORCH();
  const auto c = run_opcert_binary(NOTORCH_BINARY, "certify --backend cpu --plan basic --golden " + set_ + " --out " + out("bundle"));
  ASSERT_EQ(c.exit_code, 0) << c.out << c.err;
  EXPECT_NE(c.out.find("cpu CERTIFIED on plan basic"), std::string::npos) << c.out;
  const auto v = run_opcert("verify " + out("bundle"));
  EXPECT_EQ(v.exit_code, 0) << v.out << v.err;
  // Reruns on the machine without LibTorch judge against the same set.
  const auto rerun = run_opcert_binary(NOTORCH_BINARY, "verify " + out("bundle") + " --rerun 3 --rerun-seed 7 --golden " + set_);
  EXPECT_EQ(rerun.exit_code, 0) << rerun.out << rerun.err;
  EXPECT_NE(rerun.out.find("3 reproduced their verdict"), std::string::npos) << rerun.out;
  const json report = read_json(out("bundle/reports/smoke.seed1/report.json"));
  EXPECT_TRUE(report.at("environment").at("libraries").contains("golden_set")) << "the bundle says what judged it";
}

TEST_F(Golden, SampledCasesExportTheirSampleAndReproduceWithoutLibTorch) {
  const std::string set = out("sampled-set");
  const auto e = run_opcert(std::string("golden export --suite ") + SAMPLED_SUITE + " --out " + set);
  ASSERT_EQ(e.exit_code, 0) << e.err;
  const json m = read_json(set + "/manifest.json");
  for (const json& c : m.at("suites")[0].at("cases")) EXPECT_TRUE(c.at("sampled").get<bool>()) << c.dump();
  const auto with = run_opcert(std::string("run --backend cpu --no-peer --suite ") + SAMPLED_SUITE + " --out " + out("s-lt"));
  ASSERT_EQ(with.exit_code, 0) << with.err;
  const auto golden = run_opcert_binary(have_notorch() ? NOTORCH_BINARY : OPCERT_BINARY,
                                        std::string("run --backend cpu --no-peer --suite ") + SAMPLED_SUITE + " --golden " + set +
                                            " --out " + out("s-golden"));
  ASSERT_EQ(golden.exit_code, 0) << golden.err;
  if (have_notorch())
    EXPECT_EQ(statuses(out("s-golden/report.json")), statuses(out("s-lt/report.json")));
  else
    EXPECT_EQ(verdicts(out("s-golden/report.json")), verdicts(out("s-lt/report.json")));
  const json report = read_json(out("s-golden/report.json"));
  for (const json& r : report.at("results")) EXPECT_TRUE(r.at("sampled").get<bool>());
}

TEST_F(Golden, AChangedFileOrInputIsThatCasesErrorNamingIt) {
  const std::string copy = out("tampered");
  fs::copy(set_, copy, fs::copy_options::recursive);
  json m = read_json(copy + "/manifest.json");
  json& cases = m.at("suites")[0].at("cases");
  // One file changed after export: its sha256 no longer matches.
  const std::string first = copy + "/" + cases[0].at("file").get<std::string>();
  std::fstream(first, std::ios::in | std::ios::out | std::ios::binary).seekp(-1, std::ios::end).put('\x7f');
  // Another with a changed input and an updated manifest: the inputs this opcert generates differ.
  const std::string second = copy + "/" + cases[1].at("file").get<std::string>();
  {
    std::fstream f(second, std::ios::in | std::ios::out | std::ios::binary);
    uint64_t header = 0;
    f.read(reinterpret_cast<char*>(&header), 8);
    f.seekg(static_cast<std::streamoff>(8 + header));
    char c = 0;
    f.get(c);
    f.seekp(static_cast<std::streamoff>(8 + header));
    f.put(static_cast<char>(c ^ 0x40));
  }
  cases[1]["sha256"] = sha256_file_hex(second);
  std::ofstream(copy + "/manifest.json") << m.dump(2);

  const auto r = run_opcert("run --backend cpu --no-peer --progress plain --golden " + copy + " --out " + out("t"));
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  std::map<std::string, json> errors;
  const json report = read_json(out("t/report.json"));
  for (const json& res : report.at("results"))
    if (res.at("status") != "PASSED") errors[res.at("case").get<std::string>()] = res;
  ASSERT_EQ(errors.size(), 2u) << "only the two changed cases";
  const json& a = errors.at(cases[0].at("id").get<std::string>());
  EXPECT_EQ(a.at("status"), "ERROR");
  EXPECT_NE(a.at("message").get<std::string>().find("changed after export"), std::string::npos) << a.dump();
  EXPECT_NE(a.at("message").get<std::string>().find(first), std::string::npos) << a.dump();
  const json& b = errors.at(cases[1].at("id").get<std::string>());
  EXPECT_NE(b.at("message").get<std::string>().find("differs from the golden file's"), std::string::npos) << b.dump();
}

TEST_F(Golden, ASetWithoutTheSuiteOrSeedOrTooLargeIsBadInput) {
  const auto seed = run_opcert("run --backend cpu --no-peer --seed 2 --golden " + set_ + " --out " + out("s2"));
  EXPECT_EQ(seed.exit_code, 2);
  EXPECT_NE(seed.err.find("no suite 'smoke' with seed 2 (it holds: smoke seed 1)"), std::string::npos) << seed.err;
  EXPECT_FALSE(fs::exists(out("s2/report.json"))) << "refused before anything ran";
  const auto none = run_opcert("run --backend cpu --golden " + out("missing") + " --out " + out("m"));
  EXPECT_EQ(none.exit_code, 2);
  EXPECT_NE(none.err.find("does not exist (opcert run --golden)"), std::string::npos) << none.err;

  const auto big = run_opcert("golden export --plan basic --max-size 1MiB --out " + out("big"));
  EXPECT_EQ(big.exit_code, 2);
  EXPECT_NE(big.err.find("above --max-size 1.0 MiB"), std::string::npos) << big.err;
  EXPECT_FALSE(fs::exists(out("big")));
  const auto dry = run_opcert("golden export --suite smoke --filter '^softmax' --dry-run --out " + out("dry"));
  EXPECT_EQ(dry.exit_code, 0) << dry.err;
  EXPECT_NE(dry.out.find("suite smoke (seed 1): 8 case(s), at most"), std::string::npos) << dry.out;
  EXPECT_FALSE(fs::exists(out("dry")));
  const auto again = run_opcert("golden export --suite smoke --out " + set_);
  EXPECT_EQ(again.exit_code, 2);
  EXPECT_NE(again.err.find("is not empty"), std::string::npos) << again.err;
  const auto neither = run_opcert("golden export --out " + out("n"));
  EXPECT_EQ(neither.exit_code, 2);
}

}  // namespace
}  // namespace opcert::test
