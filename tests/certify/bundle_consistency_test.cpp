// A bundle agrees with itself (harness/certify/bundle_consistency.h): a bundle of one suite written
// by the real writers (results.jsonl, report.json, summary.md, then write_bundle's manifest, summary
// and SHA256SUMS), then made to disagree. Reruns draw their cases and recorded verdicts from
// results.jsonl, whatever report.json says.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <cstdlib>
#include <fstream>

#include "certify/bundle_consistency.h"
#include "certify/certification_bundle.h"
#include "reports/report_writer.h"
#include "reports/results_jsonl.h"

namespace opcert {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

CaseResult result(const std::string& id, Status status) {
  CaseResult r;
  r.backend = "paced";
  r.impl_key = "paced.softmax.steady";
  r.suite = "s";
  r.case_id = id;
  r.op = "softmax";
  r.dtype = "fp32";
  r.status = status;
  return r;
}

// Writes results.jsonl with `results`, one line each.
void write_record(const fs::path& folder, const std::vector<CaseResult>& results) {
  ResultsJsonl record(folder, ResultsJsonl::Mode::kTruncate);
  for (const auto& r : results) record.append(r);
}

bool has(const std::vector<std::string>& problems, const std::string& line) {
  return std::find(problems.begin(), problems.end(), line) != problems.end();
}

std::string listed(const std::vector<std::string>& problems) {
  std::string s;
  for (const auto& p : problems) s += p + "\n";
  return s;
}

class BundleConsistency : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string dir = (fs::temp_directory_path() / "opcert-consistency-XXXXXX").string();
    ASSERT_NE(mkdtemp(dir.data()), nullptr);
    dir_ = dir;
    bundle_ = dir_ / "bundle";
    const fs::path folder = bundle_ / "reports/s.seed1";
    fs::create_directories(folder);
    RunReport report;
    report.suite = "s";
    report.seed = 1;
    report.backends = {{"paced", "1.0", "plugin", "/x/libpaced.so", std::string(64, 'a'), false, {}}};
    report.results = {result("rows10", Status::kPassed), result("rows20", Status::kPassed)};
    for (const auto& writer : all_report_writers()) writer->write(report, folder);
    write_record(folder, report.results);
    BundleInputs in;
    std::ofstream(dir_ / "plan.json")
        << R"({"plan_format": "1.0", "name": "p", "suites": [{"suite": "s"}], "fail_statuses": ["FAILED"]})";
    in.plan = load_certification_plan((dir_ / "plan.json").string());
    in.backend = "paced";
    in.suites = {{{"s", 1}, "s.json", std::string(64, 'b'), "reports/s.seed1", 0}};
    write_bundle(bundle_, in);
    manifest_ = json::parse(std::ifstream(bundle_ / kManifestFile));
  }

  void TearDown() override {
    if (!dir_.empty()) fs::remove_all(dir_);
  }

  fs::path dir_;
  fs::path bundle_;
  json manifest_;
};

TEST_F(BundleConsistency, ABundleAsWrittenAgrees) {
  ASSERT_EQ(manifest_.at("verdict"), "certified");
  EXPECT_EQ(listed(consistency_problems(bundle_, manifest_)), "");
}

TEST_F(BundleConsistency, RerunsDrawTheirVerdictsFromResultsJsonl) {
  write_record(bundle_ / "reports/s.seed1", {result("rows10", Status::kFailed), result("rows20", Status::kPassed)});
  const auto recorded = recorded_results(bundle_, manifest_.at("suites")[0]);
  ASSERT_EQ(recorded.size(), 2u);
  EXPECT_EQ(recorded[0].case_id, "rows10");
  EXPECT_EQ(recorded[0].status, Status::kFailed) << "results.jsonl's verdict, not report.json's PASSED";
  const auto problems = consistency_problems(bundle_, manifest_);
  EXPECT_TRUE(has(problems, "reports/s.seed1/report.json: rows10 (paced.softmax.steady) is PASSED; results.jsonl "
                            "records it FAILED"))
      << listed(problems);
  EXPECT_TRUE(has(problems, "manifest.json: verdict \"certified\"; results.jsonl gives \"not certified\" (1 of 2 "
                            "results of paced have a status the plan fails)"))
      << listed(problems);
  EXPECT_TRUE(has(problems, "manifest.json: suite s (seed 1): failing 0; results.jsonl gives 1")) << listed(problems);
  EXPECT_TRUE(has(problems, "reports/s.seed1/summary.md: row paced / softmax: says PASSED 2, FAILED 0; results.jsonl "
                            "gives PASSED 1, FAILED 1"))
      << listed(problems);
}

TEST_F(BundleConsistency, AManifestPointingOutsideTheBundleIsRefused) {
  json suite = manifest_.at("suites")[0];
  suite["report"] = "../elsewhere/report.json";
  EXPECT_THROW(recorded_results(bundle_, suite), std::exception);
  manifest_["suites"][0] = suite;
  const auto problems = consistency_problems(bundle_, manifest_);
  ASSERT_FALSE(problems.empty());
  EXPECT_NE(problems.front().find("is not a file of the bundle"), std::string::npos) << listed(problems);
}

TEST_F(BundleConsistency, ResultsOfOneCaseOnTwoDevicesAreTwoResults) {
  CaseResult a = result("rows10", Status::kPassed), b = a;
  a.device = DeviceTag{0, "d0", "h"};
  b.device = DeviceTag{1, "d1", "h"};
  write_record(bundle_ / "reports/s.seed1", {a, b, b});
  const auto problems = consistency_problems(bundle_, manifest_);
  EXPECT_TRUE(has(problems, "reports/s.seed1/results.jsonl: rows10 (paced.softmax.steady, device 1) is recorded 2 times"))
      << listed(problems);
  EXPECT_TRUE(has(problems, "reports/s.seed1/results.jsonl: has no rows20 (paced.softmax.steady); report.json has it "
                            "PASSED"))
      << listed(problems);
}

}  // namespace
}  // namespace opcert
