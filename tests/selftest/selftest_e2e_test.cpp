// `opcert selftest` end to end, as CI runs it: the shipped smoke suite catches every mutant of
// the mutant backend while every twin passes (a suite or tolerance change that lets one escape
// fails here); a suite too weak to catch a slip says so and exits 1; bad launches exit 2.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <fstream>
#include <utility>
#include <vector>

#include "cli/run_opcert.h"

namespace opcert::test {
namespace {

nlohmann::json read_json(const std::string& path) {
  std::ifstream in(path);
  return nlohmann::json::parse(in);
}

TEST(Selftest, TheSmokeSuiteCatchesEveryMutantAndPassesEveryTwin) {
  const TempDir dir;
  const CommandResult r = run_opcert("selftest --out " + dir.path() + "/st");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  const nlohmann::json j = read_json(dir.path() + "/st/selftest.json");
  EXPECT_EQ(j.at("kind"), "opcert-selftest");
  EXPECT_TRUE(j.at("clean").get<bool>());
  EXPECT_EQ(j.at("mutants_total").get<int>(), 52);  // every compute mutant of backends/mutants: add one, count it here
  for (const auto& m : j.at("mutants")) EXPECT_TRUE(m.at("caught").get<bool>()) << m.at("key") << " escaped the smoke suite";
  EXPECT_TRUE(j.at("twin_alarms").empty()) << j.at("twin_alarms").dump(2);
  EXPECT_NE(r.out.find("mutants caught (100.0%) by suite smoke"), std::string::npos) << r.out;
  // Rounding slips are caught for what they are (docs/TOLERANCES.md, "Rounding"): truncation of
  // random outputs by the bias test, every slip on the rounding fills bit for bit.
  const std::vector<std::pair<std::string, std::string>> reasons = {
      {"mutants.gemm.truncated_output", "biased rounding"},
      {"mutants.gemm.truncated_output", "not rounded to nearest even"},
      {"mutants.gemm.half_away_output", "not rounded to nearest even"},
      {"mutants.gemm.odd_output", "not rounded to nearest even"},
      {"mutants.gemm_fp8.truncated_output", "not rounded to nearest even"},
      {"mutants.gemm_int8.half_away_output", "not rounded to nearest even"},
      {"mutants.quantize.half_away_codes", "not rounded to nearest even"},
      {"mutants.quantize.truncated_codes", "not rounded to nearest even"},
      {"mutants.attention.truncated_output", "biased rounding"},
      {"mutants.rms_norm.truncated_output", "biased rounding"},
      {"mutants.layer_norm.truncated_output", "biased rounding"},
      {"mutants.rope.truncated_output", "biased rounding"},
      {"mutants.rope.half_away_output", "not rounded to nearest even"},
      {"mutants.softmax.truncated_output", "biased rounding"},
      // issue 39: a second rounding of softmax's exponentials, and an output NaN where it is finite
      {"mutants.softmax.exp_rounded", "not rounded to nearest even"},
      {"mutants.gemm.nan_spread", "NaN/Inf mismatches"},
      {"mutants.softmax.nan_spread", "NaN/Inf mismatches"},
      {"mutants.softmax.non_finite_rows_zeroed", "NaN/Inf mismatches"},
  };
  for (const auto& [key, reason] : reasons) {
    bool found = false;
    for (const auto& m : j.at("mutants"))
      if (m.at("key") == key)
        for (const auto& c : m.at("caught_by")) found = found || c.at("message").get<std::string>().find(reason) != std::string::npos;
    EXPECT_TRUE(found) << key << " was never FAILED with \"" << reason << "\"";
  }
}

// An fp32 softmax of 4 x 8 values: a truncating softmax's fp32 outputs lean by fp32 ulps, which the
// bound cannot see and the bias test does not take (too few elements), so this suite misses it.
TEST(Selftest, AMutantTheSuitesMissIsReportedAndFailsTheRun) {
  const TempDir dir;
  const std::string suite = dir.write("blind.json", R"({"suite_format": "1.0", "description": "too small to see rounding",
    "cases": [{"op": "softmax", "params": {"dtype": "fp32", "shape": [4, 8]}}]})");
  const CommandResult r =
      run_opcert("selftest --suite " + suite + " --mutant 'mutants.softmax.truncated_output' --out " + dir.path() + "/st");
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("ESCAPED: mutants.softmax.truncated_output passed all 1 case(s) its twin passed"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("0 of 1 mutants caught (0.0%)"), std::string::npos) << r.out;
  const nlohmann::json j = read_json(dir.path() + "/st/selftest.json");
  EXPECT_FALSE(j.at("clean").get<bool>());
}

TEST(Selftest, AMutantSelectionThatSelectsNoneIsBadUsage) {
  const CommandResult r = run_opcert("selftest --mutant 'mutants.nosuch.*' --out /nonexistent/never");
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("--mutant 'mutants.nosuch.*' selects none of the mutant backend's compute mutants"), std::string::npos)
      << r.err;
}

TEST(Selftest, CollectivesWithoutRanksAreRefusedWithTheCommandThatWorks) {
  const CommandResult r = run_opcert("selftest --suite collectives --out /nonexistent/never");
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("mpirun -np 4 opcert selftest --suite collectives"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace opcert
