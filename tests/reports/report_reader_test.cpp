// report.json read back (reports/report_reader.h): a field of the wrong type is one InputError
// naming its file and JSON path, never nlohmann's bare type_error.
#include "reports/report_reader.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <string>

#include "model/input_error.h"
#include "reports/json_report_writer.h"
#include "sample_report.h"

namespace opcert {
namespace {

using nlohmann::json;

// The message reading `doc` back gives, or "" when it reads.
std::string refusal(const json& doc) {
  try {
    (void)run_report_from_json(doc, "report.json");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(ReportReader, AReportReadsBack) {
  const RunReport r = run_report_from_json(report_to_json(test::sample_report()), "report.json");
  EXPECT_EQ(r.results.size(), 11u);
  EXPECT_EQ(r.seed, 7u);
  EXPECT_EQ(r.backends.size(), 3u);
}

TEST(ReportReader, AFieldOfTheWrongTypeIsNamedByItsPath) {
  const json good = report_to_json(test::sample_report());
  const auto with = [&](const json::json_pointer& at, const json& value) {
    json doc = good;
    doc[at] = value;
    return refusal(doc);
  };
  EXPECT_EQ(with("/results/3/status"_json_pointer, 5).rfind("report.json: results[3].status: expected a string, got a "
                                                             "number (5)", 0),
            0u);
  EXPECT_EQ(with("/seed"_json_pointer, "seven").rfind("report.json: seed: expected a whole number in range, got a string", 0), 0u);
  EXPECT_EQ(with("/seed"_json_pointer, -1).rfind("report.json: seed: expected a whole number in range, got a number (-1)", 0),
            0u);
  EXPECT_EQ(with("/results/0/metrics/0/rmse"_json_pointer, true)
                .rfind("report.json: results[0].metrics[0].rmse: expected a number, got true or false", 0),
            0u);
  EXPECT_EQ(with("/backends/1/sha256"_json_pointer, json::array()).rfind("report.json: backends[1].sha256: expected a "
                                                                          "string, got an array", 0),
            0u);
  EXPECT_EQ(with("/results"_json_pointer, json::object()).rfind("report.json: results: expected an array, got an object", 0),
            0u);
  json no_status = good;
  no_status["results"][2].erase("status");
  EXPECT_EQ(refusal(no_status).rfind("report.json: results[2].status: missing", 0), 0u) << refusal(no_status);
}

}  // namespace
}  // namespace opcert
