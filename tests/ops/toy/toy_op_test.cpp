// Adding an op touches nothing outside its folder: the toy op of this folder (spec, reference,
// tolerance, work model, descriptor, operand contract), its CPU implementation (registered with the
// built-in CPU backend from this folder) and its test plugin run through `opcert run` and
// `opcert bench` in an opcert built with the op linked in (opcert_toy), with no edit elsewhere; and
// no file outside this folder names it (docs aside), so no central list was edited for it.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli/run_opcert.h"

namespace opcert {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using test::run_opcert;
using test::TempDir;

json read_json(const fs::path& path) {
  std::ifstream in(path);
  return json::parse(in);
}

std::string toy_args(const std::string& verb, const std::string& out) {
  return verb + " --plugin " + std::string(TOY_PLUGIN) + " --backend toytest --no-peer --suite " + TOY_SUITE +
         " --out " + out;
}

TEST(ToyOp, ListShowsTheToyOpBesideTheShippedOnes) {
  const auto r = run_opcert("list --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json list = json::parse(r.out);
  bool toy = false, gemm = false;
  for (const auto& op : list.at("ops")) {
    toy = toy || op.at("name") == "toy_scale";
    gemm = gemm || op.at("name") == "gemm";
  }
  EXPECT_TRUE(toy) << r.out;
  EXPECT_TRUE(gemm) << r.out;
}

TEST(ToyOp, RunChecksTheCorrectImplementationAndCatchesTheBiasedOne) {
  TempDir dir;
  const std::string out = dir.path() + "/out";
  const auto r = run_opcert(toy_args("run", out));
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;  // the biased implementation fails
  const json report = read_json(fs::path(out) / "report.json");
  int exact_passed = 0, biased_failed = 0;
  for (const auto& res : report.at("results")) {
    EXPECT_EQ(res.at("op"), "toy_scale");
    if (res.at("impl") == "toytest.toy_scale.exact") {
      EXPECT_EQ(res.at("status"), "PASSED") << res.dump(2);
      exact_passed += res.at("status") == "PASSED";
    } else if (res.at("impl") == "toytest.toy_scale.biased" && res.at("case") != "toy_scale.fp32.n0") {
      EXPECT_EQ(res.at("status"), "FAILED") << res.dump(2);
      biased_failed += res.at("status") == "FAILED";
    }
  }
  EXPECT_EQ(exact_passed, 4);
  EXPECT_EQ(biased_failed, 3);
  // The declared dtype reaches the results, and the large case was checked on a sample.
  bool sampled = false;
  for (const auto& res : report.at("results")) {
    const bool bf16 = res.at("case").get<std::string>().find("bf16") != std::string::npos;
    EXPECT_EQ(res.at("dtype"), bf16 ? "bf16" : "fp32") << res.dump(2);
    sampled = sampled || res.at("sampled").get<bool>();
  }
  EXPECT_TRUE(sampled);
}

TEST(ToyOp, TheCpuBackendRunsTheImplementationRegisteredFromTheToyFolder) {
  TempDir dir;
  const std::string out = dir.path() + "/out";
  const auto r = run_opcert("run --backend cpu --no-peer --suite " + std::string(TOY_SUITE) + " --out " + out);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  const json report = read_json(fs::path(out) / "report.json");
  int passed = 0;
  for (const auto& res : report.at("results")) {
    EXPECT_EQ(res.at("impl"), "cpu.toy_scale.loop") << res.dump(2);
    EXPECT_EQ(res.at("status"), "PASSED") << res.dump(2);
    passed += res.at("status") == "PASSED";
  }
  EXPECT_EQ(passed, 4);  // every case of the toy suite
}

TEST(ToyOp, BenchTimesItWithItsWorkModel) {
  TempDir dir;
  const std::string out = dir.path() + "/out";
  const auto r = run_opcert(toy_args("bench", out) + " --impl 'toytest.toy_scale.exact' --filter 'n1000$' "
                                                     "--benchmark_min_time=0.01 --max-time 1");
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const json report = read_json(fs::path(out) / "report.json");
  ASSERT_EQ(report.at("benchmarks").size(), 1u) << report.dump(2);
  const json& b = report.at("benchmarks")[0];
  EXPECT_EQ(b.at("op"), "toy_scale");
  EXPECT_EQ(b.at("check"), "PASSED");
  EXPECT_DOUBLE_EQ(b.at("bytes").get<double>(), 8000.0);  // x and y, fp32, 1000 elements each
  EXPECT_TRUE(b.at("gbps").is_number()) << b.dump(2);
  EXPECT_NE(r.out.find("toytest.toy_scale.exact"), std::string::npos) << r.out;
}

// An op is its folders: a list anywhere else (a CMake source list, a table of ops, an include, a
// test list) would name the op or one of its files, toy_scale*. Only the docs may.
TEST(ToyOp, NoFileOutsideItsFolderNamesIt) {
  const fs::path root(TOY_SOURCE_ROOT), folder = fs::path(TOY_SUITE).parent_path();
  std::vector<std::string> naming;
  std::size_t read = 0;
  for (auto it = fs::recursive_directory_iterator(root); it != fs::recursive_directory_iterator(); ++it) {
    const fs::path& path = it->path();
    if (it->is_directory()) {
      // The op's folder, the docs, git's store and build trees (a CMakeCache.txt, or build/).
      const bool skipped = fs::equivalent(path, folder) || path == root / "docs" || path == root / "build" ||
                           path.filename() == ".git" || fs::exists(path / "CMakeCache.txt");
      if (skipped) it.disable_recursion_pending();
      continue;
    }
    if (!it->is_regular_file() || it->file_size() > (4u << 20)) continue;
    std::ifstream in(path, std::ios::binary);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    ++read;
    if (text.find("toy_scale") != std::string::npos) naming.push_back(fs::relative(path, root).string());
  }
  EXPECT_GT(read, 500u) << "the walk of " << root << " read too little to mean anything";
  EXPECT_TRUE(naming.empty()) << "files outside " << fs::relative(folder, root) << " name the toy op: "
                              << testing::PrintToString(naming);
}

}  // namespace
}  // namespace opcert
