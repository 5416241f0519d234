#include "reports/json_report_writer.h"

#include <stdexcept>

#include "model/case_result_json.h"
#include "reports/bench_record_json.h"
#include "reports/coverage.h"
#include "reports/number_format.h"
#include "reports/report_writer.h"
#include "reports/run_summary.h"
#include "reports/json_values.h"

namespace opcert {
namespace {

using nlohmann::json;


json counts_json(const StatusCounts& counts) {
  json j = json::object();
  for (const Status s : kAllStatuses) j[std::string(status_name(s))] = counts.of(s);
  return j;
}

json backend_json(const BackendRecord& b) {
  return {{"name", b.name},
          {"version", b.version},
          {"source", b.source},
          {"library_path", string_or_null(b.library_path)},
          {"sha256", string_or_null(b.sha256)},
          {"package", package_json(b.package)},
          {"peer", b.peer},
          {"ops", b.ops}};
}

json plan_json(const RunReport& report) {
  json plan = json::array();
  for (const auto& p : report.plan) plan.push_back({{"op", p.op}, {"dtype", p.dtype}, {"cases", p.cases}});
  return plan;
}

// Per backend: the plan's pairs it covered, those it did not and why, its skips per class.
json coverage_json(const RunReport& report) {
  json coverage = json::object();
  for (const auto& c : coverage_of(report)) {
    json missing = json::array();
    for (const auto& p : c.missing())
      missing.push_back({{"op", p.op}, {"dtype", p.dtype}, {"cases", p.cases}, {"why", p.missing}});
    json skipped = json::object();
    for (const auto& [reason, n] : c.skipped) skipped[reason.empty() ? "unclassified" : reason] = n;
    coverage[c.backend] = {{"peer", c.peer},
                           {"plan_pairs", c.pairs.size()},
                           {"covered_pairs", c.covered()},
                           {"missing", missing},
                           {"skipped", skipped}};
  }
  return coverage;
}

json summary_json(const RunReport& report) {
  json backends = json::object();
  for (const auto& b : summarize_results(report)) {
    json ops = json::object();
    for (const auto& op : b.ops)
      ops[op.op] = {{"total", op.counts.total},
                    {"counts", counts_json(op.counts)},
                    {"worst_alignment_ratio", json_number(op.worst_alignment_ratio)}};
    backends[b.backend] = {{"peer", b.peer},
                           {"total", b.counts.total},
                           {"counts", counts_json(b.counts)},
                           {"worst_alignment_ratio", json_number(b.worst_alignment_ratio)},
                           {"ops", ops}};
  }
  // A run with --devices: each device's counts too, keyed by its label ("device 1", "rank 1 device 0").
  for (const auto& d : summarize_results(report, true)) {
    if (d.device.empty()) continue;
    backends[d.backend]["devices"][d.device] = {{"total", d.counts.total},
                                                {"counts", counts_json(d.counts)},
                                                {"worst_alignment_ratio", json_number(d.worst_alignment_ratio)}};
  }
  const auto all = count_all(report);
  return {{"total", all.total}, {"counts", counts_json(all)}, {"backends", backends}};
}

class JsonReportWriter final : public ReportWriter {
 public:
  std::string file_name() const override { return "report.json"; }
  void write(const RunReport& report, const std::filesystem::path& out_dir) const override {
    write_file_atomically(out_dir / file_name(), dump_json(report_to_json(report), 2) + "\n");
  }
};

}  // namespace

json package_json(const PackageIdentity& package) {
  if (package.empty()) return nullptr;
  return {{"name", package.name}, {"version", package.version}, {"sha256", string_or_null(package.sha256)}};
}

json report_to_json(const RunReport& report) {
  json backends = json::array();
  for (const auto& b : report.backends) backends.push_back(backend_json(b));
  json results = json::array();
  for (const auto& r : report.results) results.push_back(to_json(r));
  json j = {{"schema_version", kReportSchemaVersion},
          {"kind", report.kind},
          {"opcert_version", report.opcert_version},
          {"command_line", report.command_line},
          {"run_id", string_or_null(report.run_id)},
          {"started_at", report.started_at},
          {"finished_at", report.finished_at},
          {"complete", report.complete},
          {"suite",
           {{"name", report.suite},
            {"path", string_or_null(report.suite_path)},
            {"sha256", string_or_null(report.suite_sha256)}}},
          {"seed", report.seed},
          {"platform", string_or_null(report.platform)},
          {"peer", string_or_null(report.peer)},
          {"environment", report.environment.is_object() ? report.environment : json::object()},
          {"backends", backends},
          {"summary", summary_json(report)},
          {"plan", plan_json(report)},
          {"coverage", coverage_json(report)},
          {"results", results},
          {"exit_code", report.exit_code}};
  if (report.ranks) j["ranks"] = {{"count", *report.ranks}, {"launcher", report.launcher}};
  if (report.kind == kBenchReportKind) {
    json benchmarks = json::array();
    for (const auto& b : report.benchmarks) benchmarks.push_back(bench_record_json(b));
    j["benchmarks"] = benchmarks;
    j["bench_settings"] = report.bench_settings.is_object() ? report.bench_settings : json::object();
  }
  return j;
}

std::unique_ptr<ReportWriter> make_json_report_writer() { return std::make_unique<JsonReportWriter>(); }

}  // namespace opcert
