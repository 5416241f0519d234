// Platform configs: the built-ins, merging external files, and the message of every error.
#include "loader/platform/platform_config.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>

#include "model/input_error.h"

namespace opcert {
namespace {

namespace fs = std::filesystem;
using ::testing::AllOf;
using ::testing::HasSubstr;

// The message of the InputError that `body` throws; fails the test if it throws nothing.
std::string error_of(const std::function<void()>& body) {
  try {
    body();
  } catch (const InputError& e) {
    const std::string message = e.what();
    EXPECT_EQ(message.find('\n'), std::string::npos) << "messages are one line: " << message;
    return message;
  }
  ADD_FAILURE() << "expected an InputError";
  return "";
}

std::string parse_error(const std::string& text) {
  return error_of([&] { parse_platform_config(text, "p.json"); });
}

// A fresh directory per test (and process) for config files, and OPCERT_PLATFORM_JSON cleared around each test.
class PlatformFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::path(::testing::TempDir()) /
           (std::string("opcert_platform_") + info->name() + "_" + std::to_string(getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    unsetenv("OPCERT_PLATFORM_JSON");
  }
  void TearDown() override {
    unsetenv("OPCERT_PLATFORM_JSON");
    fs::remove_all(dir_);
  }

  std::string write(const std::string& name, const std::string& text) {
    const auto path = (dir_ / name).string();
    std::ofstream(path, std::ios::binary) << text;
    return path;
  }

  fs::path dir_;
};

// --- built-ins -------------------------------------------------------------------------------

TEST(BuiltinPlatforms, TheFourExistSortedAndMarkedBuiltIn) {
  const auto catalog = PlatformCatalog::builtin();
  std::vector<std::string> names;
  for (const auto& p : catalog.all()) {
    names.push_back(p.name);
    EXPECT_EQ(p.source, "built-in") << p.name;
    EXPECT_FALSE(p.backend.empty()) << p.name;
    EXPECT_FALSE(p.device.empty()) << p.name;
  }
  EXPECT_EQ(names, (std::vector<std::string>{"cpu", "cuda-h100", "cuda-h200", "example-npu"}));
}

// The embedded copies are exactly what configs/*.json holds (the build re-embeds on change).
TEST(BuiltinPlatforms, EmbeddedMatchesConfigsDirectory) {
  const auto catalog = PlatformCatalog::builtin();
  std::size_t files = 0;
  for (const auto& entry : fs::directory_iterator(OPCERT_CONFIGS_DIR)) {
    if (entry.path().extension() != ".json") continue;
    ++files;
    PlatformCatalog from_disk;
    from_disk.merge_file(entry.path().string());
    for (auto config : from_disk.all()) {
      EXPECT_EQ(config.source, entry.path().string());
      const auto* builtin = catalog.find(config.name);
      ASSERT_NE(builtin, nullptr) << config.name;
      config.source = "built-in";
      EXPECT_EQ(config, *builtin) << config.name;
    }
  }
  EXPECT_EQ(files, 4u);
}

TEST(BuiltinPlatforms, CudaH100) {
  const auto& h100 = PlatformCatalog::builtin().require("cuda-h100");
  EXPECT_EQ(h100.backend, "cuda");
  EXPECT_EQ(h100.device, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(h100.peaks.tflops.at("bf16"), 989);
  EXPECT_EQ(h100.peaks.tflops.at("fp16"), 989);
  EXPECT_EQ(h100.peaks.tflops.at("fp8_e4m3fn"), 1979);
  EXPECT_EQ(h100.peaks.tflops.at("fp8_e5m2"), 1979);
  EXPECT_EQ(h100.peaks.tflops.at("int8"), 1979);
  EXPECT_EQ(h100.peaks.tflops.at("tf32"), 494);
  EXPECT_EQ(h100.peaks.tflops.at("fp32"), 67);
  EXPECT_EQ(h100.peaks.memory_gbps, 3350);
  EXPECT_EQ(h100.peaks.link_gbps, 450);
  EXPECT_EQ(h100.implementations.size(), 14u);  // every catalogue op
  EXPECT_EQ(h100.implementations.at("gemm"), "cuda.gemm.cublaslt");
  EXPECT_EQ(h100.implementations.at("gemm_fp8"), "cuda.gemm_fp8.tuned");
  EXPECT_EQ(h100.implementations.at("attention"), "cuda.attention.tuned");
  EXPECT_EQ(h100.implementations.at("rms_norm"), "cuda.rms_norm.fused");
  EXPECT_EQ(h100.implementations.at("all_reduce"), "cuda.all_reduce.nccl");
  EXPECT_EQ(h100.environment.at("CUBLASLT_LOG_LEVEL"), "0");
}

TEST(BuiltinPlatforms, CudaH200DiffersOnlyInMemoryAndEnvironment) {
  const auto catalog = PlatformCatalog::builtin();
  const auto& h100 = catalog.require("cuda-h100");
  const auto& h200 = catalog.require("cuda-h200");
  EXPECT_EQ(h200.peaks.memory_gbps, 4800);
  EXPECT_EQ(h200.peaks.link_gbps, 450);
  EXPECT_EQ(h200.peaks.tflops, h100.peaks.tflops);
  EXPECT_EQ(h200.implementations, h100.implementations);
  EXPECT_EQ(h200.environment.at("NCCL_NVLS_ENABLE"), "0");
}

TEST(BuiltinPlatforms, CpuHasEveryOpAndNoPeaks) {
  const auto& cpu = PlatformCatalog::builtin().require("cpu");
  EXPECT_EQ(cpu.description, "portable CPU fallback");
  EXPECT_EQ(cpu.device, "host CPU");
  EXPECT_EQ(cpu.backend, "cpu");
  EXPECT_EQ(cpu.implementations.size(), 14u);
  EXPECT_EQ(cpu.implementations.at("gemm_int8"), "cpu.gemm_int8.blocked");
  EXPECT_EQ(cpu.implementations.at("attention"), "cpu.attention.flash");
  EXPECT_EQ(cpu.implementations.at("softmax"), "cpu.softmax.rowwise");
  EXPECT_EQ(cpu.implementations.at("all_to_all"), "cpu.all_to_all.mpi");
  EXPECT_TRUE(cpu.peaks.tflops.empty());
  EXPECT_FALSE(cpu.peaks.memory_gbps);
  EXPECT_FALSE(cpu.peaks.link_gbps);
}

TEST(BuiltinPlatforms, ExampleNpu) {
  const auto& npu = PlatformCatalog::builtin().require("example-npu");
  EXPECT_EQ(npu.backend, "example_npu");
  EXPECT_EQ(npu.device, "Example NPU (host-memory simulation)");
  EXPECT_EQ(npu.implementations, (std::map<std::string, std::string>{{"softmax", "example_npu.softmax.reference"}}));
  EXPECT_FALSE(npu.peaks.tflops.empty());
}

// --- parsing -----------------------------------------------------------------------------------

TEST(ParsePlatform, EveryField) {
  const auto c = parse_platform_config(R"({
    "name": "my-gpu", "description": "d", "device": "Dev 1", "backend": "my_gpu",
    "implementations": {"gemm": "my_gpu.gemm.tiled"},
    "tolerances": {"gemm": {"bf16": {"atol": 0.5}, "*": {"atol": 1, "rtol": 0.25}}},
    "peaks": {"tflops": {"bf16": 100.5, "tf32": 50}, "memory_gbps": 1000, "link_gbps": 64},
    "environment": {"MY_GPU_MODE": "fast"}
  })",
                                       "x.json");
  EXPECT_EQ(c.name, "my-gpu");
  EXPECT_EQ(c.description, "d");
  EXPECT_EQ(c.device, "Dev 1");
  EXPECT_EQ(c.backend, "my_gpu");
  EXPECT_EQ(c.implementations.at("gemm"), "my_gpu.gemm.tiled");
  EXPECT_EQ(c.tolerances.at("gemm").at("bf16"), (ToleranceOverride{0.5, std::nullopt}));
  EXPECT_EQ(c.peaks.tflops.at("bf16"), 100.5);
  EXPECT_EQ(c.peaks.tflops.at("tf32"), 50);
  EXPECT_EQ(c.peaks.memory_gbps, 1000);
  EXPECT_EQ(c.peaks.link_gbps, 64);
  EXPECT_EQ(c.environment.at("MY_GPU_MODE"), "fast");
  EXPECT_EQ(c.source, "x.json");
}

TEST(ParsePlatform, OnlyNameAndBackendAreRequired) {
  const auto c = parse_platform_config(R"({"name": "bare", "backend": "cpu"})", "x.json");
  EXPECT_EQ(c.description, "");
  EXPECT_EQ(c.device, "");
  EXPECT_TRUE(c.implementations.empty());
  EXPECT_TRUE(c.tolerances.empty());
  EXPECT_EQ(c.peaks, PeakFigures{});
  EXPECT_TRUE(c.environment.empty());
}

TEST(ParsePlatform, GatesKeepAVendorsCiThresholds) {
  const auto c = parse_platform_config(R"({"name": "acme-ci", "backend": "acme", "gates":
      {"fail_on": ["status", "perf"], "max_slowdown_pct": 3, "min_peer_ratio": 0.9, "max_alignment_growth": 1.5}})",
                                       "g.json");
  EXPECT_EQ(c.gates.fail_on, (std::vector<std::string>{"status", "perf"}));
  EXPECT_NEAR(*c.gates.max_slowdown, 0.03, 1e-12);
  EXPECT_EQ(*c.gates.min_peer_ratio, 0.9);
  EXPECT_EQ(*c.gates.max_alignment_growth, 1.5);
  EXPECT_EQ(parse_platform_config(R"({"name": "bare", "backend": "cpu"})", "x.json").gates, GateThresholds{});
}

TEST(PlatformErrors, ABadGateNamesItsField) {
  EXPECT_THAT(parse_error(R"({"name": "a", "backend": "b", "gates": {"fail_on": ["speed"]}})"),
              AllOf(HasSubstr("p.json"), HasSubstr("unknown gate 'speed'"), HasSubstr("gates.fail_on")));
  EXPECT_THAT(parse_error(R"({"name": "a", "backend": "b", "gates": {"max_slowdown": 5}})"),
              AllOf(HasSubstr("unknown field 'gates.max_slowdown'"), HasSubstr("max_slowdown_pct")));
  EXPECT_THAT(parse_error(R"({"name": "a", "backend": "b", "gates": {"min_peer_ratio": -1}})"),
              HasSubstr("gates.min_peer_ratio"));
}

TEST(ParsePlatform, ToleranceForFallsBackToStarFieldByField) {
  const auto c = parse_platform_config(R"({"name": "t", "backend": "cpu", "tolerances": {
    "gemm": {"bf16": {"atol": 0.5}, "*": {"atol": 1, "rtol": 0.25}}, "softmax": {"fp32": {"rtol": 0}}}})",
                                       "x.json");
  EXPECT_EQ(c.tolerance_for("gemm", "bf16"), (ToleranceOverride{0.5, 0.25}));
  EXPECT_EQ(c.tolerance_for("gemm", "fp16"), (ToleranceOverride{1, 0.25}));
  EXPECT_EQ(c.tolerance_for("softmax", "fp32"), (ToleranceOverride{std::nullopt, 0.0}));
  EXPECT_EQ(c.tolerance_for("softmax", "bf16"), ToleranceOverride{});
  EXPECT_EQ(c.tolerance_for("rope", "bf16"), ToleranceOverride{});
}

// --- JSON syntax ---------------------------------------------------------------------------------

TEST(PlatformErrors, BadJsonGivesFileLineColumn) {
  // Trailing comma: the '}' at line 4, column 33 is where a key was expected.
  const std::string text =
      "{\n"
      "  \"name\": \"x\",\n"
      "  \"backend\": \"cpu\",\n"
      "  \"peaks\": { \"memory_gbps\": 12, }\n"
      "}\n";
  EXPECT_THAT(parse_error(text), AllOf(HasSubstr("p.json:4:33: invalid JSON: "), HasSubstr("unexpected '}'")));
}

TEST(PlatformErrors, BadJsonColumnCountsCharactersNotBytes) {
  // "é" is two bytes but one column; the stray 'x' is at line 2, column 21 (22 counting bytes).
  const std::string text = "{\"name\": \"x\",\n \"description\": \"é\" x}";
  EXPECT_THAT(parse_error(text), HasSubstr("p.json:2:21: invalid JSON: "));
}

TEST(PlatformErrors, MisplacedTokenIsLocatedAtItsStart) {
  // A missing comma: the error is the next key, whose opening quote is at column 14.
  EXPECT_THAT(parse_error(R"({"name": "x" "ba\"ck": 1})"),
              AllOf(HasSubstr("p.json:1:14: invalid JSON: "), HasSubstr("unexpected string literal")));
  EXPECT_THAT(parse_error("{\"name\": \"x\",\n \"backend\": 12 345}"),
              AllOf(HasSubstr("p.json:2:16: invalid JSON: "), HasSubstr("unexpected number literal")));
}

TEST(PlatformErrors, TruncatedJsonPointsPastTheEnd) {
  EXPECT_THAT(parse_error("{\"name\": \"x\"\n"),
              AllOf(HasSubstr("p.json:2:1: invalid JSON: "), HasSubstr("unexpected end of input")));
  EXPECT_THAT(parse_error(""), HasSubstr("p.json:1:1: invalid JSON: "));
}

TEST(PlatformErrors, NumberTooLarge) {
  EXPECT_THAT(parse_error(R"({"name": "x", "backend": "cpu", "peaks": {"memory_gbps": 1e999}})"),
              AllOf(HasSubstr("p.json: invalid JSON: "), HasSubstr("number overflow")));
}

TEST(PlatformErrors, DuplicateKeyNamesTheField) {
  EXPECT_EQ(parse_error(R"({"name": "x", "backend": "cpu", "peaks": {"tflops": {"bf16": 1, "bf16": 2}}})"),
            "p.json: duplicate field 'peaks.tflops.bf16'; keep only one of them");
  const std::string array = R"([{"name": "a", "backend": "cpu"}, {"name": "b", "name": "c", "backend": "cpu"}])";
  EXPECT_EQ(error_of([&] { parse_platform_configs(array, "p.json"); }),
            "p.json: duplicate field '[1].name'; keep only one of them");
}

// --- fields ----------------------------------------------------------------------------------------

TEST(PlatformErrors, UnknownTopLevelField) {
  EXPECT_EQ(parse_error(R"({"name": "x", "backend": "cpu", "peak": {}})"),
            "p.json: unknown field 'peak' (known: name, description, device, backend, peer, implementations, "
            "tolerances, peaks, environment, gates)");
}

TEST(PlatformErrors, UnknownNestedFieldNamesTheDottedPath) {
  EXPECT_EQ(parse_error(R"({"name": "x", "backend": "cpu", "peaks": {"tflop": {}}})"),
            "p.json: unknown field 'peaks.tflop' (known: tflops, memory_gbps, link_gbps, cache_mib)");
  EXPECT_EQ(parse_error(R"({"name": "x", "backend": "cpu", "tolerances": {"gemm": {"bf16": {"tol": 1}}}})"),
            "p.json: unknown field 'tolerances.gemm.bf16.tol' (known: atol, rtol)");
  const std::string array = R"([{"name": "a", "backend": "cpu"}, {"name": "b", "backend": "cpu", "peaks": {"x": 1}}])";
  EXPECT_THAT(error_of([&] { parse_platform_configs(array, "p.json"); }),
              HasSubstr("p.json: unknown field '[1].peaks.x' (known: "));
}

TEST(PlatformErrors, MissingOrMalformedName) {
  EXPECT_EQ(parse_error(R"({"backend": "cpu"})"),
            "p.json: missing field 'name'; every platform needs a name (see docs/CONFIGS.md)");
  EXPECT_EQ(parse_error(R"({"name": "CUDA H100", "backend": "cuda"})"),
            "p.json: field 'name' must use only lowercase letters, digits and '-', not \"CUDA H100\"");
  // A control character from the file is escaped so the message stays one line.
  EXPECT_EQ(parse_error(R"({"name": "a\nb", "backend": "cpu"})"),
            "p.json: field 'name' must use only lowercase letters, digits and '-', not \"a\\nb\"");
  EXPECT_THAT(parse_error(R"({"name": "x"})"), HasSubstr("p.json: missing field 'backend'"));
  EXPECT_THAT(parse_error(R"({"name": "x", "backend": "my.gpu"})"),
              HasSubstr("p.json: field 'backend' must be a backend name"));
}

TEST(PlatformErrors, WrongTypes) {
  EXPECT_EQ(parse_error(R"({"name": 5, "backend": "cpu"})"),
            "p.json: field 'name' must be a string, not 5 (quote it: \"5\")");
  EXPECT_EQ(parse_error(R"({"name": "x", "backend": "cpu", "implementations": ["cpu.gemm.blocked"]})"),
            "p.json: field 'implementations' must be an object, not an array");
  EXPECT_EQ(parse_error(R"({"name": "x", "backend": "cpu", "peaks": {"memory_gbps": "3350"}})"),
            "p.json: field 'peaks.memory_gbps' must be a positive number, not a string");
  EXPECT_EQ(parse_error(R"({"name": "x", "backend": "cpu", "peaks": {"tflops": {"bf16": true}}})"),
            "p.json: field 'peaks.tflops.bf16' must be a positive number, not true");
  EXPECT_EQ(parse_error(R"({"name": "x", "backend": "cpu", "environment": {"OMP_NUM_THREADS": 8}})"),
            "p.json: field 'environment.OMP_NUM_THREADS' must be a string, not 8 (quote it: \"8\")");
  EXPECT_EQ(parse_error(R"({"name": "x", "backend": "cpu", "tolerances": {"gemm": {"bf16": 0.1}}})"),
            "p.json: field 'tolerances.gemm.bf16' must be an object, not 0.1");
  EXPECT_EQ(parse_error(R"([{"name": "x", "backend": "cpu"}])"),
            "p.json: a platform config must be a JSON object, not an array");
  EXPECT_EQ(error_of([&] { parse_platform_configs(R"([{"name": "x", "backend": "cpu"}, "y"])", "p.json"); }),
            "p.json: [1]: a platform config must be a JSON object, not a string");
}

TEST(PlatformErrors, NonPositivePeak) {
  EXPECT_EQ(parse_error(R"({"name": "x", "backend": "cpu", "peaks": {"memory_gbps": 0}})"),
            "p.json: field 'peaks.memory_gbps' must be a positive number, not 0");
  EXPECT_EQ(parse_error(R"({"name": "x", "backend": "cpu", "peaks": {"tflops": {"bf16": -989}}})"),
            "p.json: field 'peaks.tflops.bf16' must be a positive number, not -989");
  EXPECT_EQ(parse_error(R"({"name": "x", "backend": "cpu", "peaks": {"link_gbps": null}})"),
            "p.json: field 'peaks.link_gbps' must be a positive number, not null");
}

TEST(PlatformErrors, NegativeOrEmptyTolerance) {
  EXPECT_EQ(parse_error(R"({"name": "x", "backend": "cpu", "tolerances": {"gemm": {"*": {"rtol": -0.5}}}})"),
            "p.json: field 'tolerances.gemm.*.rtol' must be a nonnegative number, not -0.5");
  EXPECT_EQ(parse_error(R"({"name": "x", "backend": "cpu", "tolerances": {"gemm": {"*": {}}}})"),
            "p.json: field 'tolerances.gemm.*' sets nothing; give atol, rtol or both, or remove it");
}

TEST(PlatformErrors, ImplementationKeyOfAnotherBackendOrOp) {
  EXPECT_EQ(parse_error(R"({"name": "x", "backend": "cuda", "implementations": {"gemm": "cpu.gemm.blocked"}})"),
            "p.json: field 'implementations.gemm' must be an implementation key \"cuda.gemm.<variant>\" of "
            "backend 'cuda', not \"cpu.gemm.blocked\"");
  EXPECT_THAT(parse_error(R"({"name": "x", "backend": "cuda", "implementations": {"gemm": "cuda.attention.flash"}})"),
              HasSubstr("must be an implementation key \"cuda.gemm.<variant>\""));
  EXPECT_THAT(parse_error(R"({"name": "x", "backend": "cuda", "implementations": {"gemm": "cuda.gemm."}})"),
              HasSubstr("not \"cuda.gemm.\""));
}

TEST(PlatformErrors, UnknownOp) {
  EXPECT_THAT(parse_error(R"({"name": "x", "backend": "cpu", "implementations": {"gemmm": "cpu.gemmm.x"}})"),
              HasSubstr("p.json: unknown op 'gemmm' in field 'implementations' (catalogue ops: gemm, gemm_fp8, "));
  EXPECT_THAT(parse_error(R"({"name": "x", "backend": "cpu", "tolerances": {"allreduce": {"*": {"atol": 0}}}})"),
              AllOf(HasSubstr("p.json: unknown op 'allreduce' in field 'tolerances' (catalogue ops: "),
                    HasSubstr("all_reduce")));
}

TEST(PlatformErrors, UnknownDtype) {
  EXPECT_THAT(parse_error(R"({"name": "x", "backend": "cpu", "tolerances": {"gemm": {"bfloat16": {"atol": 0}}}})"),
              AllOf(HasSubstr("p.json: unknown dtype 'bfloat16' in field 'tolerances.gemm' (known: "),
                    HasSubstr("bf16"), HasSubstr("or \"*\" for every dtype")));
  // tf32 is a peak figure only; it is not a storage dtype to set tolerances for.
  EXPECT_THAT(parse_error(R"({"name": "x", "backend": "cpu", "tolerances": {"gemm": {"tf32": {"atol": 0}}}})"),
              HasSubstr("unknown dtype 'tf32'"));
  EXPECT_THAT(parse_error(R"({"name": "x", "backend": "cpu", "peaks": {"tflops": {"fp8": 1}}})"),
              AllOf(HasSubstr("p.json: unknown dtype 'fp8' in field 'peaks.tflops' (known: "), HasSubstr("fp8_e4m3fn"),
                    HasSubstr("tf32")));
}

TEST(PlatformErrors, BadEnvironmentName) {
  EXPECT_EQ(parse_error(R"({"name": "x", "backend": "cpu", "environment": {"A=B": "1"}})"),
            "p.json: field 'environment' has an invalid variable name \"A=B\" (empty or containing '=')");
}

TEST(PlatformErrors, SameNameTwiceInOneFile) {
  const std::string array = R"([{"name": "a", "backend": "cpu"}, {"name": "a", "backend": "cuda"}])";
  EXPECT_EQ(error_of([&] { parse_platform_configs(array, "p.json"); }),
            "p.json: platform 'a' is defined twice, at [0] and [1]; keep one");
}

// --- catalog and merging ------------------------------------------------------------------------

TEST(PlatformCatalogTest, RequireUnknownListsKnownNames) {
  EXPECT_EQ(error_of([] { PlatformCatalog::builtin().require("cuda-h300"); }),
            "unknown platform 'cuda-h300' (known: cpu, cuda-h100, cuda-h200, example-npu); see `opcert list`");
  EXPECT_EQ(PlatformCatalog::builtin().find("cuda-h300"), nullptr);
}

TEST_F(PlatformFiles, MergeReplacesByNameAndAddsNew) {
  const auto path = write("site.json", R"([
    {"name": "cuda-h100", "backend": "cuda", "device": "H100 PCIe",
     "implementations": {"gemm": "cuda.gemm.cublas"}},
    {"name": "acme-npu", "backend": "acme", "peaks": {"memory_gbps": 800}}
  ])");
  auto catalog = PlatformCatalog::builtin();
  catalog.merge_file(path);

  std::vector<std::string> names;
  for (const auto& p : catalog.all()) names.push_back(p.name);
  EXPECT_EQ(names, (std::vector<std::string>{"acme-npu", "cpu", "cuda-h100", "cuda-h200", "example-npu"}));

  // Whole replacement: nothing of the built-in cuda-h100 survives.
  const auto& h100 = catalog.require("cuda-h100");
  EXPECT_EQ(h100.source, path);
  EXPECT_EQ(h100.device, "H100 PCIe");
  EXPECT_EQ(h100.implementations, (std::map<std::string, std::string>{{"gemm", "cuda.gemm.cublas"}}));
  EXPECT_EQ(h100.peaks, PeakFigures{});
  EXPECT_TRUE(h100.environment.empty());

  EXPECT_EQ(catalog.require("acme-npu").peaks.memory_gbps, 800);
  EXPECT_EQ(catalog.require("cpu").source, "built-in");
  // The built-in catalog itself is untouched.
  EXPECT_EQ(PlatformCatalog::builtin().require("cuda-h100").device, "NVIDIA H100 80GB HBM3");
}

TEST_F(PlatformFiles, BadFileLeavesCatalogUnchanged) {
  const auto path =
      write("bad.json", R"([{"name": "cpu", "backend": "cpu"}, {"name": "y", "backend": "cpu", "z": 1}])");
  auto catalog = PlatformCatalog::builtin();
  EXPECT_THAT(error_of([&] { catalog.merge_file(path); }), HasSubstr(path + ": unknown field '[1].z'"));
  EXPECT_EQ(catalog.require("cpu").source, "built-in");
  EXPECT_EQ(catalog.find("y"), nullptr);
}

TEST_F(PlatformFiles, MissingFileNamesThePath) {
  const auto path = (dir_ / "nope.json").string();
  auto catalog = PlatformCatalog::builtin();
  EXPECT_EQ(error_of([&] { catalog.merge_file(path); }),
            path +
                ": cannot read platform config: No such file or directory; check the path given by "
                "--platform-config or OPCERT_PLATFORM_JSON");
}

TEST_F(PlatformFiles, DirectoryIsNotAConfig) {
  auto catalog = PlatformCatalog::builtin();
  EXPECT_THAT(error_of([&] { catalog.merge_file(dir_.string()); }),
              HasSubstr(dir_.string() + ": cannot read platform config: Is a directory"));
}

TEST_F(PlatformFiles, BadJsonInFileNamesFileLineColumn) {
  // The comma missing after "x" shows at the start of the next key, line 3, column 3.
  const auto path = write("broken.json", "{\n  \"name\": \"x\"\n  \"backend\": \"cpu\"\n}\n");
  EXPECT_THAT(error_of([&] { load_platforms({path}); }), HasSubstr(path + ":3:3: invalid JSON: "));
}

TEST_F(PlatformFiles, LoadHonoursEnvironmentListThenFlagFiles) {
  const auto a = write("a.json", R"({"name": "site-a", "backend": "cpu", "device": "from env a"})");
  const auto b = write("b.json", R"([{"name": "site-b", "backend": "cpu", "device": "from env b"},
                                     {"name": "cpu", "backend": "cpu", "device": "from env b"}])");
  const auto flag = write("flag.json", R"({"name": "site-b", "backend": "cpu", "device": "from flag"})");
  // Empty entries (leading, doubled, trailing ':') name no file.
  setenv("OPCERT_PLATFORM_JSON", (":" + a + "::" + b + ":").c_str(), 1);

  const auto catalog = load_platforms({flag});
  EXPECT_EQ(catalog.require("site-a").device, "from env a");
  EXPECT_EQ(catalog.require("cpu").device, "from env b");
  EXPECT_EQ(catalog.require("cpu").source, b);
  EXPECT_EQ(catalog.require("site-b").device, "from flag");  // flags come after the environment
  EXPECT_EQ(catalog.all().size(), 6u);
}

TEST_F(PlatformFiles, LoadWithoutEnvironmentOrFilesIsTheBuiltins) {
  EXPECT_EQ(load_platforms({}).all(), PlatformCatalog::builtin().all());
  setenv("OPCERT_PLATFORM_JSON", "", 1);
  EXPECT_EQ(load_platforms({}).all(), PlatformCatalog::builtin().all());
}

TEST_F(PlatformFiles, MissingEnvironmentFileIsAnError) {
  const auto path = (dir_ / "missing.json").string();
  setenv("OPCERT_PLATFORM_JSON", path.c_str(), 1);
  EXPECT_THAT(error_of([] { load_platforms({}); }),
              AllOf(HasSubstr(path + ": cannot read platform config: No such file or directory"),
                    HasSubstr("OPCERT_PLATFORM_JSON")));
}

}  // namespace
}  // namespace opcert
