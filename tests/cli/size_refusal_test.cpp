// docs/SUITES.md, "Sizes": a suite case whose sizes do not fit is refused when the suite loads,
// with one line naming the case and the parameters, exit 2, never run. These four once ran: the
// softmax PASSED having checked 0 of "0" elements, the GEMM of 2^40 cubed crashed its worker, and
// the other two were SKIPPED with a footprint of "outputs 512" bytes.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <string>

#include "cli/run_opcert.h"

namespace opcert::test {
namespace {

struct Oversized {
  const char* params;      // the case's params
  const char* op;
  const char* id;          // its generated id
  const char* parameters;  // what the line names
};

constexpr Oversized kOversized[] = {
    {R"({"dtype": "fp32", "shape": [1099511627776, 1099511627776]})", "softmax", "softmax.fp32.shape1099511627776_1099511627776",
     "parameter 'shape': operand 'x' [1099511627776, 1099511627776] holds 2^80 elements"},
    {R"({"dtype": "fp32", "m": 1099511627776, "n": 1099511627776, "k": 1099511627776})", "gemm",
     "gemm.fp32.m1099511627776.n1099511627776.k1099511627776", "parameters 'k', 'm', 'n': operand 'a'"},
    {R"({"dtype": "fp32", "m": 4294967296, "n": 4294967296, "k": 4})", "gemm", "gemm.fp32.m4294967296.n4294967296.k4",
     "parameters 'm', 'n': operand 'c' [4294967296, 4294967296] holds 2^64 elements of fp32 (2^66 bytes)"},
    {R"({"dtype": "fp32", "t": 1099511627776, "h": 1099511627776})", "rms_norm", "rms_norm.fp32.t1099511627776.h1099511627776",
     "parameters 'h', 't': operand 'x'"},
};

TEST(SizeRefusal, AnOversizedCaseIsOneLineNamingCaseAndParametersExitTwoAndNeverRuns) {
  for (const auto& o : kOversized) {
    TempDir dir;
    const std::string suite = dir.write("big.json", std::string(R"({"suite_format": "1.0", "cases": [{"op": ")") + o.op +
                                                        R"(", "params": )" + o.params + "}]}");
    const std::string out = dir.path() + "/out";
    const auto r = run_opcert("run --backend cpu --no-peer --progress plain --suite " + suite + " --out " + out);
    EXPECT_EQ(r.exit_code, 2) << o.id << ": " << r.err;
    EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << "one line: " << r.err;
    EXPECT_NE(r.err.find(std::string("cases[0] (") + o.id + "): " + o.parameters), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("more than the 2^60 bytes a case may hold"), std::string::npos) << r.err;
    EXPECT_FALSE(std::filesystem::exists(out + "/results.jsonl")) << o.id << ": nothing runs";
  }
}

// The contract allows an empty output (M = 0; a varlen batch of empty query sequences): it passes,
// and its metrics say it is empty rather than leaving "checked 0" unexplained.
TEST(SizeRefusal, AnEmptyOutputTheContractAllowsPassesAndItsMetricsSaySo) {
  TempDir dir;
  const std::string suite = dir.write("empty.json", R"({"suite_format": "1.0", "cases": [
    {"op": "gemm", "params": {"dtype": "fp32", "m": 0, "n": 16, "k": 8}},
    {"op": "softmax", "params": {"dtype": "fp32", "rows": 4, "n": 8}}]})");
  const std::string out = dir.path() + "/out";
  const auto r = run_opcert("run --backend cpu --no-peer --progress plain --suite " + suite + " --out " + out);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::ifstream lines(out + "/results.jsonl");
  int seen = 0;
  for (std::string line; std::getline(lines, line);) {
    const auto result = nlohmann::json::parse(line);
    const auto& m = result.at("metrics").at(0);
    EXPECT_EQ(result.at("status"), "PASSED") << line;
    if (result.at("case") == "gemm.fp32.m0.n16.k8") {
      ++seen;
      EXPECT_EQ(m.at("checked"), 0);
      EXPECT_EQ(m.at("total"), 0);
      EXPECT_EQ(m.value("empty", false), true) << line;
      EXPECT_EQ(result.at("message"), "c: empty output (0 elements), nothing to compare");
    } else {
      ++seen;
      EXPECT_FALSE(m.contains("empty")) << line;
    }
  }
  EXPECT_EQ(seen, 2);
}

}  // namespace
}  // namespace opcert::test
