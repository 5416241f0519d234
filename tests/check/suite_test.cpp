// Suite files: the shipped suites load; grids expand; ids are generated and unique; every bad
// input is one clear line naming the file and the entry.
#include "check/suite.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <optional>
#include <set>
#include <string>

#include "loader/temp_dir.h"
#include "model/input_error.h"

namespace opcert {
namespace {

using testing::TempDir;

// Sets an environment variable for one test and restores it afterwards.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::string& value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    ::setenv(name, value.c_str(), 1);
  }
  ~ScopedEnv() {
    if (old_)
      ::setenv(name_, old_->c_str(), 1);
    else
      ::unsetenv(name_);
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

// The InputError message of loading `path`, or "" when it loads.
std::string error_of(const std::string& path) {
  try {
    load_suite(path, 1);
  } catch (const InputError& e) {
    const std::string message = e.what();
    EXPECT_EQ(message.find('\n'), std::string::npos) << "one line: " << message;
    return message;
  }
  return "";
}

std::vector<std::string> ids(const Suite& s) {
  std::vector<std::string> out;
  for (const auto& c : s.cases) out.push_back(c.id);
  return out;
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

constexpr const char* kHeader = R"({"suite_format": "1.0", "cases": )";

std::string suite_with(const std::string& cases) { return kHeader + cases + "}"; }

TEST(Suite, EveryShippedSuiteLoadsWithUniqueIds) {
  const auto names = available_suites();
  for (const char* expected : {"smoke", "sweeps/gemm", "sweeps/gemm_fp8", "sweeps/gemm_int8", "sweeps/quantize",
                               "sweeps/attention", "sweeps/rms_norm", "sweeps/layer_norm", "sweeps/rope", "sweeps/softmax",
                               "models/wan2.1-14b", "models/llama3-8b", "models/llama3-70b"})
    EXPECT_NE(std::find(names.begin(), names.end(), expected), names.end()) << expected;
  for (const auto& name : names) {
    SCOPED_TRACE(name);
    Suite s;
    ASSERT_NO_THROW(s = load_suite(name, 7));
    EXPECT_EQ(s.name, name);
    EXPECT_EQ(s.sha256.size(), 64u);
    EXPECT_FALSE(s.cases.empty());
    std::set<std::string> seen;
    for (const auto& c : s.cases) {
      EXPECT_TRUE(seen.insert(c.id).second) << "duplicate " << c.id;
      EXPECT_EQ(c.seed, 7u);
      EXPECT_EQ(c.suite, name);
      EXPECT_FALSE(c.outputs.empty()) << c.id;
    }
  }
}

TEST(Suite, SmokeCoversEveryOpInASmallBudget) {
  const auto s = load_suite("smoke", 1);
  EXPECT_GE(s.cases.size(), 120u);
  EXPECT_LE(s.cases.size(), 200u);
  std::set<std::string> ops;
  for (const auto& c : s.cases) {
    ops.insert(c.op);
    for (const auto& t : c.outputs) EXPECT_LE(t.numel(), 1 << 20) << c.id << " is not small";
  }
  EXPECT_EQ(ops, (std::set<std::string>{"gemm", "gemm_fp8", "gemm_int8", "quantize", "attention", "rms_norm", "layer_norm",
                                        "rope", "softmax"}));
}

// allow_tf32 (docs/OPS.md#gemm) reaches the backends as the int 1, on fp32 gemm cases only, in the
// suites that gate (smoke, the gemm sweep) and the one that times (bench/gemm).
TEST(Suite, Tf32CasesAreFp32GemmsThatSayTheyAllowIt) {
  for (const char* name : {"smoke", "sweeps/gemm", "bench/gemm"}) {
    SCOPED_TRACE(name);
    std::vector<const Case*> tf32;
    const auto s = load_suite(name, 1);
    for (const auto& c : s.cases)
      if (c.attrs.contains("allow_tf32")) tf32.push_back(&c);
    ASSERT_FALSE(tf32.empty());
    for (const Case* c : tf32) {
      EXPECT_EQ(c->op, "gemm") << c->id;
      EXPECT_EQ(std::get<int64_t>(c->attrs.at("allow_tf32")), 1) << c->id;
      EXPECT_EQ(c->find_input("a")->dtype, OPCERT_DTYPE_F32) << c->id;
    }
    if (std::string(name) == "smoke") {
      const bool odd_with_bias = std::any_of(tf32.begin(), tf32.end(), [](const Case* c) {
        return c->find_input("bias") != nullptr && c->find_output("c")->shape[1] % 2 == 1;
      });
      EXPECT_TRUE(odd_with_bias) << "smoke needs a TF32 case with a bias and an odd N";
    }
    if (std::string(name) == "bench/gemm") {
      const auto square = std::find_if(tf32.begin(), tf32.end(), [](const Case* c) { return c->id == "gemm.square.tf32.8192"; });
      ASSERT_NE(square, tf32.end());
      EXPECT_EQ((*square)->find_input("a")->shape, (std::vector<int64_t>{8192, 8192}));
    }
  }
}

TEST(Suite, ModelSuitesCarryTheModelShapes) {
  const auto s = load_suite("models/llama3-8b", 1);
  const Case* qkv = nullptr;
  for (const auto& c : s.cases)
    if (c.id == "llama3-8b.prefill.qkv_proj.bf16") qkv = &c;
  ASSERT_NE(qkv, nullptr);
  EXPECT_EQ(qkv->find_input("a")->shape, (std::vector<int64_t>{8192, 4096}));
  EXPECT_EQ(qkv->find_input("b")->shape, (std::vector<int64_t>{6144, 4096}));  // (32 + 2 * 8) heads x 128
  EXPECT_EQ(qkv->sample_elements, 65536);
  EXPECT_NE(std::find(qkv->tags.begin(), qkv->tags.end(), "model:llama3-8b"), qkv->tags.end());
  EXPECT_NE(std::find(qkv->tags.begin(), qkv->tags.end(), "prefill"), qkv->tags.end());
}

TEST(Suite, GridExpandsToTheCartesianProductLastKeyFastest) {
  TempDir dir;
  const auto path = dir.write("g.json", suite_with(R"([
    {"op": "gemm", "params": {"m": 128, "n": 256, "k": 512}, "grid": {"dtype": ["bf16", "fp16"], "bias": [false, true], "b_layout": ["nk", "kn"]}}
  ])"));
  const auto s = load_suite(path, 1);
  EXPECT_EQ(ids(s), (std::vector<std::string>{
                        "gemm.bf16.m128.n256.k512", "gemm.fp16.m128.n256.k512",
                        "gemm.bf16.m128.n256.k512.bias", "gemm.fp16.m128.n256.k512.bias",
                        "gemm.bf16.m128.n256.k512.kn", "gemm.fp16.m128.n256.k512.kn",
                        "gemm.bf16.m128.n256.k512.kn.bias", "gemm.fp16.m128.n256.k512.kn.bias"}));
  EXPECT_EQ(s.cases[7].find_input("b")->shape, (std::vector<int64_t>{512, 256}));
  EXPECT_EQ(s.cases[7].find_input("bias")->dtype, OPCERT_DTYPE_F16);
  EXPECT_EQ(s.path, path);
  EXPECT_EQ(s.name, path);
}

TEST(Suite, IdsNameTheNonDefaultParametersInTableOrder) {
  TempDir dir;
  const auto path = dir.write("ids.json", suite_with(R"([
    {"op": "gemm", "params": {"bias": true, "b_layout": "kn", "k": 512, "n": 256, "m": 128, "dtype": "bf16"}},
    {"op": "attention", "params": {"dtype": "fp16", "layout": "varlen", "seqlens_q": [3, 0, 5], "hq": 8, "hkv": 2, "d": 64, "causal": false, "window_left": 16}},
    {"op": "softmax", "params": {"dtype": "fp32", "shape": [4, 4096], "specials": ["nan", "-inf"]}},
    {"op": "rms_norm", "params": {"dtype": "bf16", "t": 1, "h": 17, "weight": false, "eps": 1e-6}},
    {"op": "gemm_fp8", "params": {"m": 1, "n": 2, "k": 3, "a_dtype": "fp8_e5m2", "scaling": "tensor"}},
    {"op": "quantize", "params": {"in_dtype": "bf16", "out_dtype": "fp8_e4m3fn", "m": 1, "k": 2}},
    {"op": "gemm", "id": "mine", "params": {"dtype": "fp32", "m": 1, "n": 1, "k": 1}},
    {"op": "gemm", "id": "linear", "params": {"m": 1, "n": 1, "k": 1}, "grid": {"dtype": ["fp32"], "b_layout": ["nk"]}}
  ])"));
  EXPECT_EQ(ids(load_suite(path, 1)),
            (std::vector<std::string>{"gemm.bf16.m128.n256.k512.kn.bias",
                                      "attention.fp16.varlen.seqlens_q3_0_5.hq8.hkv2.d64.window_left16",
                                      "softmax.fp32.shape4_4096.nan_-inf", "rms_norm.bf16.t1.h17.noweight.eps1e-06",
                                      // gemm_fp8 names both operand dtypes always; fp8 by short names.
                                      "gemm_fp8.e5m2.e4m3.m1.n2.k3", "quantize.bf16.e4m3.m1.k2", "mine",
                                      // An explicit id with a grid: a prefix for the grid values, defaults included.
                                      "linear.fp32.nk"}));
}

TEST(Suite, DefaultsApplyToEveryCaseAndPerOpCaseParamsWin) {
  TempDir dir;
  const auto path = dir.write("d.json", R"({"suite_format": "1.0", "description": "x", "tags": ["t0"],
    "defaults": {"sample": 99, "gemm": {"dtype": "fp16", "bias": true}},
    "cases": [
      {"op": "gemm", "tags": ["t1"], "params": {"m": 2, "n": 3, "k": 4}},
      {"op": "gemm", "params": {"m": 2, "n": 3, "k": 4, "dtype": "bf16", "sample": 0}},
      {"op": "softmax", "params": {"dtype": "fp32", "n": 4}}
    ]})");
  const auto s = load_suite(path, 1);
  ASSERT_EQ(s.cases.size(), 3u);
  EXPECT_EQ(s.cases[0].find_input("a")->dtype, OPCERT_DTYPE_F16);
  EXPECT_NE(s.cases[0].find_input("bias"), nullptr);
  EXPECT_EQ(s.cases[0].sample_elements, 99);
  EXPECT_EQ(s.cases[0].tags, (std::vector<std::string>{"t0", "t1"}));
  EXPECT_EQ(s.cases[1].find_input("a")->dtype, OPCERT_DTYPE_BF16);
  EXPECT_EQ(s.cases[1].sample_elements, 0);
  EXPECT_EQ(s.cases[2].sample_elements, 99);
  EXPECT_EQ(s.cases[2].tags, (std::vector<std::string>{"t0"}));
}

TEST(Suite, NamedSuitesResolveOnTheSearchPathFirstEntryFirst) {
  TempDir a, b;
  a.write("mine.json", suite_with(R"([{"op": "softmax", "params": {"dtype": "fp32", "n": 4}}])"));
  b.write("mine.json", suite_with(R"([])"));
  b.write("nested/other.json", suite_with(R"([{"op": "softmax", "params": {"dtype": "fp16", "n": 8}}])"));
  ScopedEnv env("OPCERT_SUITE_PATH", a.path().string() + "::" + b.path().string());
  const auto path = suite_search_path();
  ASSERT_GE(path.size(), 3u);
  EXPECT_EQ(path[0], a.path().string());
  EXPECT_EQ(path[1], b.path().string());
  EXPECT_EQ(load_suite("mine", 1).cases.size(), 1u);
  EXPECT_EQ(load_suite("mine", 1).path, a / "mine.json");
  EXPECT_EQ(load_suite("nested/other", 1).cases.at(0).suite, "nested/other");
  const auto names = available_suites();
  EXPECT_TRUE(std::is_sorted(names.begin(), names.end()));
  for (const char* n : {"mine", "nested/other", "smoke"}) EXPECT_NE(std::find(names.begin(), names.end(), n), names.end()) << n;
}

TEST(Suite, MissingSuiteListsTheAvailableOnes) {
  TempDir a;
  a.write("alpha.json", suite_with("[]"));
  ScopedEnv env("OPCERT_SUITE_PATH", a.path().string());
  const auto message = error_of("no-such-suite");
  EXPECT_TRUE(contains(message, "no suite named 'no-such-suite'")) << message;
  EXPECT_TRUE(contains(message, "available: alpha, bench/attention")) << message;
  EXPECT_TRUE(contains(message, "models/llama3-70b")) << message;
  EXPECT_TRUE(contains(message, "smoke")) << message;
  EXPECT_TRUE(contains(error_of(a / "nope.json"), "suite file '" + a / "nope.json" + "' not found"));
}

TEST(Suite, MalformedJsonGivesLineAndColumn) {
  TempDir dir;
  const auto path = dir.write("bad.json", "{\"suite_format\": \"1.0\",\n  \"cases\": [\n    {\"op\": \"gemm\" \"params\": {}}\n  ]\n}\n");
  const auto message = error_of(path);
  EXPECT_TRUE(contains(message, path + ":3:19:")) << message;  // the start of "params"
}

TEST(Suite, EveryBadInputIsOneClearLine) {
  TempDir dir;
  struct Bad {
    const char* name;
    std::string text;
    std::string expected;  // after "<file>"
  };
  const std::vector<Bad> cases = {
      {"unknown_top", R"({"suite_format": "1.0", "cases": [], "seed": 3})",
       ": unknown field 'seed'; known: cases, defaults, description, suite_format, tags"},
      {"no_format", R"({"cases": []})", ": suite_format must be \"1.0\""},
      {"format_2", R"({"suite_format": "2.0", "cases": []})", ": suite_format must be \"1.0\" (this opcert reads suite format 1.x), found \"2.0\""},
      {"no_cases", R"({"suite_format": "1.0"})", ": cases must be a list of case entries"},
      {"unknown_case_field", suite_with(R"([{"op": "softmax", "parms": {}}])"),
       ": cases[0]: unknown field 'parms'; known: grid, id, op, params, tags"},
      {"unknown_op", suite_with(R"([{"op": "gemmm"}])"),
       ": cases[0]: unknown op 'gemmm'; known ops: gemm, gemm_fp8, gemm_int8, quantize, attention, rms_norm, "
       "layer_norm, rope, softmax, all_reduce, all_gather, reduce_scatter, broadcast, all_to_all"},
      {"collective", suite_with(R"([{"op": "all_reduce", "params": {"dtype": "fp32"}}])"),
       ": cases[0] (all_reduce.fp32): missing required parameter 'count' for all_reduce"},
      {"missing_op", suite_with(R"([{"params": {}}])"), ": cases[0]: missing \"op\""},
      {"unknown_param", suite_with(R"([{"op": "gemm", "params": {"dtype": "bf16", "m": 1, "n": 2, "k": 3, "bais": true}}])"),
       ": cases[0] (gemm.bf16.m1.n2.k3): unknown parameter 'bais' for gemm; known: dtype, m, n, k, b_layout, bias, allow_tf32, fill, "
       "specials, sample"},
      {"tf32_not_fp32", suite_with(R"([{"op": "gemm", "params": {"dtype": "bf16", "m": 1, "n": 2, "k": 3, "allow_tf32": true}}])"),
       ": cases[0] (gemm.bf16.m1.n2.k3.allow_tf32): parameter 'allow_tf32' needs dtype fp32 (TF32 rounds fp32 inputs), not "
       "bf16"},
      {"bad_dtype", suite_with(R"([{"op": "softmax", "params": {"dtype": "fp8", "n": 4}}])"),
       ": cases[0] (softmax.fp8.n4): parameter 'dtype' must be a dtype among fp32, fp16, bf16, not \"fp8\""},
      {"duplicate", suite_with(R"([{"op": "softmax", "params": {"dtype": "fp32", "n": 4}}, {"op": "softmax", "params": {"n": 4, "dtype": "fp32"}}])"),
       ": duplicate case id 'softmax.fp32.n4' from cases[0] and cases[1]; give one of them an explicit \"id\""},
      {"duplicate_grid", suite_with(R"([{"op": "softmax", "id": "x", "params": {"dtype": "fp32"}, "grid": {"n": [4, 8]}}, {"op": "softmax", "id": "x.n8", "params": {"dtype": "fp32", "n": 1}}])"),
       ": duplicate case id 'x.n8' from cases[0] (grid point 1) and cases[1]"},
      {"grid_and_params", suite_with(R"([{"op": "softmax", "params": {"dtype": "fp32", "n": 4}, "grid": {"n": [1]}}])"),
       ": cases[0]: parameter 'n' is in both params and grid; keep one"},
      {"empty_grid", suite_with(R"([{"op": "softmax", "params": {"dtype": "fp32"}, "grid": {"n": []}}])"),
       ": cases[0]: grid.n must be a non-empty list of values"},
      {"bad_id", suite_with(R"([{"op": "softmax", "id": "a b", "params": {"dtype": "fp32", "n": 4}}])"),
       ": cases[0]: id must be a non-empty string without spaces"},
      {"bad_tags", suite_with(R"([{"op": "softmax", "tags": "edge", "params": {"dtype": "fp32", "n": 4}}])"),
       ": cases[0]: tags must be a list of strings"},
      {"bad_defaults", R"({"suite_format": "1.0", "defaults": {"gemm": 3}, "cases": []})",
       ": defaults.gemm must be an object of gemm parameters"},
      {"duplicate_key", R"({"suite_format": "1.0", "cases": [], "cases": []})", ": duplicate field 'cases'"},
  };
  for (const auto& bad : cases) {
    SCOPED_TRACE(bad.name);
    const auto path = dir.write(std::string(bad.name) + ".json", bad.text);
    const auto message = error_of(path);
    EXPECT_TRUE(contains(message, path + bad.expected)) << message;
  }
}

}  // namespace
}  // namespace opcert
