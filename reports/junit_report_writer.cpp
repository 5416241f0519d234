// junit.xml in the Ant/Jenkins dialect CI systems read (reports/schema/junit.xsd): one testsuite
// per backend, the peer included as its own; one testcase per result.
#include <fmt/format.h>

#include <map>
#include <tuple>

#include "reports/report_writer.h"
#include "reports/result_text.h"
#include "reports/run_summary.h"
#include "reports/xml_escape.h"

namespace opcert {
namespace {

std::string seconds(double ms) { return fmt::format("{:.3f}", ms > 0 ? ms / 1000.0 : 0.0); }

std::string attr(std::string_view name, std::string_view value) {
  return fmt::format(" {}=\"{}\"", name, xml_escape_attribute(value));
}

std::string counts_attributes(const StatusCounts& counts, double total_ms) {
  return fmt::format(" tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"{}\" time=\"{}\"", counts.total,
                     counts.failures(), counts.errors(), counts.of(Status::kSkipped), seconds(total_ms));
}

const BackendRecord* find_record(const RunReport& report, const std::string& backend) {
  for (const auto& b : report.backends)
    if (b.name == backend) return &b;
  return nullptr;
}

void add_property(std::string& xml, std::string_view name, std::string_view value) {
  xml += "      <property" + attr("name", name) + attr("value", value) + "/>\n";
}

std::string properties(const RunReport& report, const std::string& backend) {
  std::string xml = "    <properties>\n";
  add_property(xml, "suite", report.suite);
  if (!report.suite_sha256.empty()) add_property(xml, "suite_sha256", report.suite_sha256);
  add_property(xml, "seed", std::to_string(report.seed));
  add_property(xml, "platform", report.platform);
  add_property(xml, "opcert_version", report.opcert_version);
  if (const auto commit = environment_string(report, "git_commit"); !commit.empty())
    add_property(xml, "git_commit", commit);
  if (const BackendRecord* b = find_record(report, backend)) {
    add_property(xml, "backend_version", b->version);
    add_property(xml, "backend_source", b->source);
    if (!b->library_path.empty()) add_property(xml, "backend_library_path", b->library_path);
    if (!b->sha256.empty()) add_property(xml, "backend_sha256", b->sha256);
    if (b->peer) add_property(xml, "peer", "true");
  }
  if (!report.complete) add_property(xml, "complete", "false");
  xml += "    </properties>\n";
  return xml;
}

// Several implementations of one op in one backend run the same case ids; their names get the
// implementation key so every testcase stays distinct.
// Several devices run the same cases too (--devices): their results are told apart by the device
// in the name and the classname.
std::map<std::tuple<std::string, std::string, std::string, std::string>, int> case_name_uses(const RunReport& report) {
  std::map<std::tuple<std::string, std::string, std::string, std::string>, int> uses;
  for (const auto& r : report.results) ++uses[{r.backend, r.op, r.case_id, device_label(r.device, r.rank)}];
  return uses;
}

std::string testcase(const CaseResult& r, bool name_with_impl) {
  std::string name = name_with_impl && !r.impl_key.empty() ? r.case_id + " [" + r.impl_key + "]" : r.case_id;
  const std::string device = device_label(r.device, r.rank);
  if (!device.empty()) name += " (" + device + ")";                     // one testcase per device
  else if (r.rank) name += " (rank " + std::to_string(*r.rank) + ")";  // collectives: one testcase per rank
  // A device's results group under backend.device<i>.op (rank<r>.device<i> across ranks), so CI
  // systems show a bad device as one class of failures.
  std::string classname = r.backend;
  if (r.device) classname += (r.rank ? ".rank" + std::to_string(*r.rank) : "") + ".device" + std::to_string(r.device->index);
  std::string xml = "    <testcase" + attr("classname", classname + "." + r.op) + attr("name", name) +
                    attr("time", seconds(r.duration_ms));
  const std::string status(status_name(r.status));
  const std::string message = r.message.empty() ? status : r.message;
  switch (r.status) {
    case Status::kPassed:
      return xml + "/>\n";
    case Status::kSkipped:
      return xml + ">\n      <skipped" + attr("message", message) + "/>\n    </testcase>\n";
    case Status::kFailed:
    case Status::kMistrusted:
      return xml + ">\n      <failure" + attr("message", message) + attr("type", status) + ">" +
             xml_escape_text(describe_result(r)) + "</failure>\n    </testcase>\n";
    case Status::kError:
    case Status::kCrashed:
    case Status::kTimeout:
      return xml + ">\n      <error" + attr("message", message) + attr("type", status) + ">" +
             xml_escape_text(describe_result(r)) + "</error>\n    </testcase>\n";
  }
  return xml + "/>\n";
}

std::string junit_document(const RunReport& report) {
  const auto summaries = summarize_results(report);
  const auto uses = case_name_uses(report);
  double all_ms = 0.0;
  for (const auto& r : report.results) all_ms += r.duration_ms;

  std::string xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  xml += "<testsuites" + attr("name", "opcert") + counts_attributes(count_all(report), all_ms) + ">\n";
  const std::string host = environment_string(report, "host");
  for (const auto& suite : summaries) {
    double suite_ms = 0.0;
    for (const auto& r : report.results)
      if (r.backend == suite.backend) suite_ms += r.duration_ms;
    xml += "  <testsuite" + attr("name", suite.backend) + counts_attributes(suite.counts, suite_ms);
    if (!report.started_at.empty()) xml += attr("timestamp", report.started_at);
    if (!host.empty()) xml += attr("hostname", host);
    xml += ">\n" + properties(report, suite.backend);
    for (const auto& r : report.results)
      if (r.backend == suite.backend)
        xml += testcase(r, uses.at({r.backend, r.op, r.case_id, device_label(r.device, r.rank)}) > 1);
    xml += "  </testsuite>\n";
  }
  xml += "</testsuites>\n";
  return xml;
}

class JunitReportWriter final : public ReportWriter {
 public:
  std::string file_name() const override { return "junit.xml"; }
  void write(const RunReport& report, const std::filesystem::path& out_dir) const override {
    write_file_atomically(out_dir / file_name(), junit_document(report));
  }
};

}  // namespace

std::unique_ptr<ReportWriter> make_junit_report_writer() { return std::make_unique<JunitReportWriter>(); }

}  // namespace opcert
