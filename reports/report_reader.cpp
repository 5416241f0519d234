#include "reports/report_reader.h"

#include <fmt/format.h>


#include "model/case_result_json.h"
#include "model/json_field.h"
#include "model/input_error.h"
#include "reports/bench_record_json.h"
#include "reports/json_report_writer.h"
#include "model/text_file.h"

namespace opcert {
namespace {

using nlohmann::json;

// A text field: "" when absent or null, a JsonFieldError naming it when not a string.
std::string text_of(const json& doc, const char* name) { return json_field_or<std::string>(doc, name, ""); }

// A text field, or "" (absent, or not text): for the fields that say whether this is a report at all.
std::string loose_text(const json& doc, const char* name) {
  const auto it = doc.is_object() ? doc.find(name) : doc.end();
  return it != doc.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// Each element of the array field `name` read by `read`, a JsonFieldError naming "name[i]" inside.
template <class T, class Read>
void read_array(const json& doc, const char* name, std::vector<T>& out, Read read) {
  const json& items = json_field_or<json>(doc, name, json::array());
  if (!items.is_array()) throw JsonFieldError(name, json_mismatch("an array", items));
  for (std::size_t i = 0; i < items.size(); ++i)
    out.push_back(json_within(fmt::format("{}[{}]", name, i), [&] { return read(items[i]); }));
}

BackendRecord backend_from(const json& b) {
  BackendRecord r{text_of(b, "name"),         text_of(b, "version"), text_of(b, "source"),
                  text_of(b, "library_path"), text_of(b, "sha256"),  json_field_or(b, "peer", false)};
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
  const std::string kind = loose_text(doc, "kind");
  if (kind != kBenchReportKind && kind != "opcert-conformance-report")
    throw InputError(fmt::format("'{}' is not an opcert report (no kind opcert-conformance-report or "
                                 "opcert-bench-report)",
                                 source));
  const std::string version = loose_text(doc, "schema_version");
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
    const json suite = json_field_or(doc, "suite", json::object());
    r.suite = text_of(suite, "name");
    r.suite_path = text_of(suite, "path");
    r.suite_sha256 = text_of(suite, "sha256");
    r.seed = json_field_or(doc, "seed", uint64_t{0});
    r.platform = text_of(doc, "platform");
    r.peer = text_of(doc, "peer");
    r.run_id = text_of(doc, "run_id");
    r.started_at = text_of(doc, "started_at");
    r.finished_at = text_of(doc, "finished_at");
    r.complete = json_field_or(doc, "complete", true);
    r.environment = json_field_or(doc, "environment", json(nullptr));
    read_array(doc, "backends", r.backends, backend_from);
    read_array(doc, "plan", r.plan, [](const json& p) {  // since 2.7
      return PlannedPair{text_of(p, "op"), text_of(p, "dtype"), json_field_or(p, "cases", int64_t{0})};
    });
    read_array(doc, "results", r.results, case_result_from_json);
    read_array(doc, "benchmarks", r.benchmarks, bench_record_from_json);
    r.bench_settings = json_field_or(doc, "bench_settings", json(nullptr));
    r.exit_code = json_field_or(doc, "exit_code", 0);
    if (doc.contains("ranks") && doc["ranks"].is_object()) {
      json_within("ranks", [&] {
        r.ranks = json_field_or(doc["ranks"], "count", 1);
        r.launcher = text_of(doc["ranks"], "launcher");
      });
    }
  } catch (const JsonFieldError& e) {
    throw InputError(fmt::format("{}: {}: {}; give a report.json as opcert wrote it", source, e.path(),
                                 e.problem()));
  } catch (const std::exception& e) {
    throw InputError(fmt::format("'{}': {}", source, e.what()));
  }
  return r;
}

}  // namespace opcert
