#include "reports/report_reader.h"

#include <fmt/format.h>


#include "model/case_result_json.h"
#include "model/input_error.h"
#include "reports/bench_record_json.h"
#include "reports/json_report_writer.h"
#include "model/text_file.h"

namespace opcert {
namespace {

using nlohmann::json;

std::string text_of(const json& doc, const char* name) {
  const auto it = doc.find(name);
  return it == doc.end() || !it->is_string() ? std::string() : it->get<std::string>();
}

BackendRecord backend_from(const json& b) {
  BackendRecord r{text_of(b, "name"),         text_of(b, "version"), text_of(b, "source"),
                  text_of(b, "library_path"), text_of(b, "sha256"),  b.value("peer", false)};
  if (const auto p = b.find("package"); p != b.end() && p->is_object())
    r.package = {text_of(*p, "name"), text_of(*p, "version"), text_of(*p, "sha256")};
  for (const auto& op : b.value("ops", json::array()))  // since 2.7
    if (op.is_string()) r.ops.push_back(op.get<std::string>());
  return r;
}

// The major of "M.m", or -1.
int schema_major(const std::string& version) {
  const auto dot = version.find('.');
  try {
    return std::stoi(version.substr(0, dot));
  } catch (const std::exception&) {
    return -1;
  }
}

}  // namespace

ReportDocument read_report_document(const std::filesystem::path& path) {
  const std::filesystem::path file =
      std::filesystem::is_directory(path) ? path / "report.json" : path;
  const std::optional<std::string> text = read_text_file(file);
  if (!text)
    throw InputError(fmt::format("cannot read '{}': give a run's output directory or its report.json", file.string()));
  try {
    return {json::parse(*text), file};
  } catch (const json::exception& e) {
    throw InputError(fmt::format("'{}' is not JSON ({})", file.string(), e.what()));
  }
}

RunReport read_run_report(const std::filesystem::path& path) {
  const ReportDocument report = read_report_document(path);
  return run_report_from_json(report.doc, report.file.string());
}

RunReport run_report_from_json(const nlohmann::json& doc, const std::string& source) {
  const std::string kind = doc.is_object() ? text_of(doc, "kind") : "";
  if (kind != kBenchReportKind && kind != "opcert-conformance-report")
    throw InputError(fmt::format("'{}' is not an opcert report (no kind opcert-conformance-report or "
                                 "opcert-bench-report)",
                                 source));
  const std::string version = text_of(doc, "schema_version");
  const int ours = schema_major(kReportSchemaVersion);
  if (schema_major(version) != ours)
    throw InputError(fmt::format("'{}' has report schema {}; this opcert reads {}.x: compare it with the opcert "
                                 "that wrote it",
                                 source, version.empty() ? "(none)" : version, ours));
  RunReport r;
  try {
    r.kind = kind;
    r.opcert_version = text_of(doc, "opcert_version");
    r.command_line = text_of(doc, "command_line");
    const json& suite = doc.value("suite", json::object());
    r.suite = text_of(suite, "name");
    r.suite_path = text_of(suite, "path");
    r.suite_sha256 = text_of(suite, "sha256");
    r.seed = doc.value("seed", uint64_t{0});
    r.platform = text_of(doc, "platform");
    r.peer = text_of(doc, "peer");
    r.run_id = text_of(doc, "run_id");
    r.started_at = text_of(doc, "started_at");
    r.finished_at = text_of(doc, "finished_at");
    r.complete = doc.value("complete", true);
    r.environment = doc.value("environment", json(nullptr));
    for (const auto& b : doc.value("backends", json::array())) r.backends.push_back(backend_from(b));
    for (const auto& p : doc.value("plan", json::array()))  // since 2.7
      r.plan.push_back({text_of(p, "op"), text_of(p, "dtype"), p.value("cases", int64_t{0})});
    for (const auto& res : doc.value("results", json::array())) r.results.push_back(case_result_from_json(res));
    for (const auto& b : doc.value("benchmarks", json::array())) r.benchmarks.push_back(bench_record_from_json(b));
    r.bench_settings = doc.value("bench_settings", json(nullptr));
    r.exit_code = doc.value("exit_code", 0);
    if (doc.contains("ranks") && doc["ranks"].is_object()) {
      r.ranks = doc["ranks"].value("count", 1);
      r.launcher = text_of(doc["ranks"], "launcher");
    }
  } catch (const std::exception& e) {
    throw InputError(fmt::format("'{}': {}", source, e.what()));
  }
  return r;
}

}  // namespace opcert
