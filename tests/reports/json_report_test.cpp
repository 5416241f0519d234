#include "reports/json_report_writer.h"
#include "reports/report_reader.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "reports/report_writer.h"
#include "reports/results_jsonl.h"
#include "sample_report.h"
#include "test_support.h"

namespace opcert {
namespace {

using nlohmann::json;

const std::filesystem::path kSchema = std::filesystem::path(OPCERT_SCHEMA_DIR) / "report.schema.json";

// Validates a JSON file (or, with "jsonl", each line of one) against report.schema.json or one of
// its $defs; prints each error with its location and exits 1 when there is one.
constexpr const char* kValidator = R"PY(
import json, sys
from jsonschema import Draft202012Validator
schema_path, doc_path, definition, mode = sys.argv[1:5]
schema = json.load(open(schema_path))
Draft202012Validator.check_schema(schema)
if definition != "-":
    schema = {"$schema": schema["$schema"], "$defs": schema["$defs"], "$ref": "#/$defs/" + definition}
validator = Draft202012Validator(schema)
docs = [json.loads(l) for l in open(doc_path) if l.strip()] if mode == "jsonl" else [json.load(open(doc_path))]
bad = 0
for n, doc in enumerate(docs, 1):
    for e in validator.iter_errors(doc):
        bad += 1
        print(f"doc {n}: /{'/'.join(map(str, e.absolute_path))}: {e.message}")
print(f"{len(docs)} document(s), {bad} error(s)")
sys.exit(1 if bad else 0)
)PY";

class ReportSchema : public ::testing::Test {
 protected:
  void SetUp() override {
    python_ = test::python_with_jsonschema();
    if (python_.empty())
      GTEST_SKIP() << "no python3 with jsonschema (Draft 2020-12): apt-get install python3-jsonschema";
    test::write_file(dir_.path() / "validate.py", kValidator);
  }
  test::CommandResult validate(const std::filesystem::path& doc, const std::string& definition = "-",
                               const std::string& mode = "json") {
    return test::run_command(python_ + " " + test::shell_quote((dir_.path() / "validate.py").string()) + " " +
                             test::shell_quote(kSchema.string()) + " " + test::shell_quote(doc.string()) + " " +
                             definition + " " + mode);
  }
  test::ScratchDir dir_;
  std::string python_;
};

TEST_F(ReportSchema, WrittenReportValidates) {
  make_json_report_writer()->write(test::sample_report(), dir_.path());
  const auto r = validate(dir_.path() / "report.json");
  EXPECT_EQ(r.exit_code, 0) << r.output;
}

// Schema 2.7: the plan, each backend's ops, coverage per backend, a skip's class, bound_rms and the
// worst misrounding.
TEST_F(ReportSchema, AReportWithItsPlanAndCoverageValidates) {
  RunReport report = test::sample_report();
  report.plan = {{"gemm", "fp32", 3}, {"softmax", "fp32", 2}, {"rms_norm", "bf16", 1}};
  report.backends[0].ops = {"gemm", "softmax"};
  report.backends[1].ops = {"gemm"};
  report.results[3].skip_reason = skip_reason::kDeclined;  // cpu softmax s1
  report.results[0].metrics.front().bound_rms = 0.25;
  report.results[0].metrics.front().rounding.worst_misrounded_ulp = 2;
  report.results[0].metrics.front().rounding.worst_misrounded_exact_ulp = 2.3;
  make_json_report_writer()->write(report, dir_.path());
  const auto r = validate(dir_.path() / "report.json");
  EXPECT_EQ(r.exit_code, 0) << r.output;

  const json doc = report_to_json(report);
  EXPECT_EQ(doc["plan"][2], json({{"op", "rms_norm"}, {"dtype", "bf16"}, {"cases", 1}}));
  EXPECT_EQ(doc["backends"][1]["ops"], json({"gemm"}));
  EXPECT_EQ(doc["coverage"]["cpu"]["covered_pairs"], 2);  // softmax ran s2 (it crashed: a verdict, not a gap)
  EXPECT_EQ(doc["coverage"]["cpu"]["missing"],
            json::parse(R"([{"op": "rms_norm", "dtype": "bf16", "cases": 1, "why": "not_implemented"}])"));
  EXPECT_EQ(doc["coverage"]["cpu"]["skipped"], json({{"declined", 1}}));
  EXPECT_EQ(doc["coverage"]["acme"]["missing"].size(), 2u);
  EXPECT_EQ(doc["results"][3]["skip_reason"], "declined");
  EXPECT_FALSE(doc["results"][4].contains("skip_reason"));

  // Read back, the plan and the ops give the same coverage.
  const RunReport back = run_report_from_json(doc, "report.json");
  EXPECT_EQ(report_to_json(back)["coverage"], doc["coverage"]);
  EXPECT_EQ(back.results[0].metrics.front().bound_rms, 0.25);
  EXPECT_EQ(back.results[0].metrics.front().rounding.worst_misrounded_ulp, 2);
}

// Schema 2.8: a result's phases validate and read back; a result without them (the runner's own,
// an older report's) still validates, and a negative time does not.
TEST_F(ReportSchema, AResultsPhasesValidateAndReadBack) {
  RunReport report = test::sample_report();
  report.results[0].phases = PhaseTimes{0.001, 0.002, 0.003, 0.004, 0.005, 0.02, 0.5, 0.0001};
  make_json_report_writer()->write(report, dir_.path());
  EXPECT_EQ(validate(dir_.path() / "report.json").exit_code, 0);

  json doc = report_to_json(report);
  EXPECT_EQ(doc["results"][0]["phases"],
            json::parse(R"({"generate": 0.001, "copy": 0.002, "launch": 0.003, "reference": 0.004, "check": 0.005,
                            "worker": 0.02, "startup": 0.5, "ipc": 0.0001})"));
  EXPECT_FALSE(doc["results"][1].contains("phases"));
  const RunReport back = run_report_from_json(doc, "report.json");
  ASSERT_TRUE(back.results[0].phases.has_value());
  EXPECT_EQ(back.results[0].phases->reference, 0.004);
  EXPECT_EQ(back.results[0].phases->startup, 0.5);
  EXPECT_FALSE(back.results[1].phases.has_value());

  doc["results"][0]["phases"]["copy"] = -1.0;
  test::write_file(dir_.path() / "bad.json", doc.dump());
  const auto bad = validate(dir_.path() / "bad.json");
  EXPECT_EQ(bad.exit_code, 1) << bad.output;
  EXPECT_NE(bad.output.find("/results/0/phases/copy"), std::string::npos) << bad.output;
}

TEST_F(ReportSchema, ABenchReportWithSamplingAndGpuReadingsValidates) {
  make_json_report_writer()->write(test::sample_bench_report(), dir_.path());
  const auto r = validate(dir_.path() / "report.json");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  const json doc = json::parse(test::read_file(dir_.path() / "report.json"));
  const json& b = doc["benchmarks"][0];
  const json& rep = b["repetitions"][1];
  EXPECT_EQ(rep["samples"], 9000);
  EXPECT_EQ(rep["iterations"], 9000);
  EXPECT_EQ(rep["stopped_by"], "time_limit");
  EXPECT_EQ(rep["conditions"]["start"]["sm_clock_mhz"], 1755);
  EXPECT_EQ(rep["conditions"]["start"]["power_w"], 699.8);
  EXPECT_EQ(rep["conditions"]["start"]["clock_reasons"], json({"sw_power_cap"}));
  EXPECT_EQ(rep["conditions"]["end"]["clock_reasons"], json({"gpu_idle", "sw_power_cap"}));
  EXPECT_EQ(b["condition_flags"], json({"throttled"}));
  EXPECT_EQ(b["noise"], 0.008);
  EXPECT_EQ(b["noise_limited"], true);
  EXPECT_EQ(doc["bench_settings"]["conditions"]["devices"][0]["power_limit_w"], 700.0);
}

TEST_F(ReportSchema, RejectsABenchmarkWithoutItsReadingsOrWithABadOne) {
  // The schema must hold the conditions to their shape: a clock as text, a missing end reading, a
  // flag opcert never writes and a benchmark without its noise are all refused.
  json doc = report_to_json(test::sample_bench_report());
  doc["benchmarks"][0]["repetitions"][0]["conditions"]["start"]["sm_clock_mhz"] = "1980 MHz";
  doc["benchmarks"][0]["repetitions"][1]["conditions"].erase("end");
  doc["benchmarks"][0]["condition_flags"] = json({"slow"});
  doc["benchmarks"][0].erase("noise");
  test::write_file(dir_.path() / "bad.json", doc.dump());
  const auto r = validate(dir_.path() / "bad.json");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("/benchmarks/0/repetitions/0/conditions"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("/benchmarks/0/repetitions/1/conditions"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("'slow'"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("'noise' is a required property"), std::string::npos) << r.output;
}

TEST_F(ReportSchema, EmptyInterruptedRunValidates) {
  RunReport report;
  report.complete = false;
  report.exit_code = 1;
  make_json_report_writer()->write(report, dir_.path());
  const auto r = validate(dir_.path() / "report.json");
  EXPECT_EQ(r.exit_code, 0) << r.output;
}

TEST_F(ReportSchema, EveryResultsJsonlLineValidatesAsAResult) {
  {
    ResultsJsonl stream(dir_.path(), ResultsJsonl::Mode::kTruncate);
    for (const auto& result : test::sample_report().results) stream.append(result);
  }
  const auto r = validate(dir_.path() / "results.jsonl", "result", "jsonl");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("11 document(s), 0 error(s)"), std::string::npos) << r.output;
}

TEST_F(ReportSchema, RejectsWhatIsNotAReport) {
  // The validator must be able to fail: an unknown status, a missing field, a bad measure string.
  json doc = report_to_json(test::sample_report());
  doc["results"][0]["status"] = "BOGUS";
  doc.erase("seed");
  doc["results"][1]["metrics"][0]["rmse"] = "NaN";
  test::write_file(dir_.path() / "bad.json", doc.dump());
  const auto r = validate(dir_.path() / "bad.json");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("BOGUS"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("'seed' is a required property"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("/results/1/metrics/0/rmse"), std::string::npos) << r.output;
}

TEST(JsonReport, HeaderFieldsAndSuite) {
  const json doc = report_to_json(test::sample_report());
  EXPECT_EQ(doc["schema_version"], "2.12");
  EXPECT_EQ(doc["kind"], "opcert-conformance-report");
  EXPECT_EQ(doc["opcert_version"], "0.1.0");
  EXPECT_EQ(doc["seed"], 7);
  EXPECT_EQ(doc["platform"], "h100-sxm");
  EXPECT_EQ(doc["suite"]["sha256"], std::string(64, 'a'));
  EXPECT_EQ(doc["complete"], true);
  EXPECT_EQ(doc["exit_code"], 1);
  EXPECT_EQ(doc["environment"]["git_commit"], "abc1234");
  ASSERT_EQ(doc["backends"].size(), 3u);
  EXPECT_EQ(doc["backends"][1]["library_path"], "/opt/acme/libacme.so");
  EXPECT_TRUE(doc["backends"][0]["library_path"].is_null());
  EXPECT_EQ(doc["backends"][2]["peer"], true);
  EXPECT_EQ(doc["results"].size(), 11u);
}

TEST(JsonReport, SummaryCountsByHand) {
  const json s = report_to_json(test::sample_report())["summary"];
  EXPECT_EQ(s["total"], 11);
  EXPECT_EQ(s["counts"]["PASSED"], 5);  // cpu g1, acme g1, torch g1..g3
  EXPECT_EQ(s["counts"]["FAILED"], 1);
  EXPECT_EQ(s["counts"]["TIMEOUT"], 1);

  const json& cpu = s["backends"]["cpu"];
  EXPECT_EQ(cpu["total"], 5);
  EXPECT_EQ(cpu["peer"], false);
  EXPECT_EQ(cpu["ops"]["gemm"]["counts"],
            (json{{"PASSED", 1}, {"FAILED", 1}, {"MISTRUSTED", 1}, {"SKIPPED", 0}, {"ERROR", 0}, {"CRASHED", 0}, {"TIMEOUT", 0}}));
  EXPECT_EQ(cpu["ops"]["gemm"]["worst_alignment_ratio"], "nan");  // g2's NaN is the worst
  EXPECT_EQ(cpu["ops"]["softmax"]["counts"]["SKIPPED"], 1);
  EXPECT_EQ(cpu["ops"]["softmax"]["counts"]["CRASHED"], 1);
  EXPECT_TRUE(cpu["ops"]["softmax"]["worst_alignment_ratio"].is_null());

  const json& acme = s["backends"]["acme"];
  EXPECT_EQ(acme["ops"]["gemm"]["worst_alignment_ratio"], 0.5);
  EXPECT_EQ(acme["counts"]["ERROR"], 1);
  EXPECT_EQ(s["backends"]["torch"]["peer"], true);
  EXPECT_EQ(s["backends"]["torch"]["counts"]["PASSED"], 3);
}

TEST(JsonReport, NonFiniteMeasuresAreStrings) {
  const json doc = report_to_json(test::sample_report());
  const json& g2 = doc["results"][1];
  EXPECT_EQ(g2["metrics"][0]["rmse"], "nan");
  EXPECT_EQ(g2["metrics"][0]["max_rel"], "inf");
  EXPECT_EQ(g2["alignment_ratio"], "nan");
  EXPECT_EQ(doc["results"][0]["alignment_ratio"], 2.5);
}

TEST(JsonReport, InvalidUtf8InAMessageDoesNotLoseTheReport) {
  test::ScratchDir dir;
  auto report = test::sample_report();
  report.results[0].message = "bad byte \xff here";
  make_json_report_writer()->write(report, dir.path());
  const json doc = json::parse(test::read_file(dir.path() / "report.json"));
  EXPECT_EQ(doc["results"][0]["message"], "bad byte \xEF\xBF\xBD here");
}

}  // namespace
}  // namespace opcert
