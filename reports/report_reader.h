// report.json read back into the result model, for the verbs that judge runs after the fact
// (`opcert compare`, `--baseline`): the same RunReport the writers were given, as far as the file
// holds it (the summary is recomputed, never read).
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "reports/run_report.h"

namespace opcert {

/// The report at `path`: a report.json, or a run's output directory holding one. Throws InputError
/// (exit 2) naming the path, and the field where it is one, when the file is missing, is not JSON,
/// is not an opcert report, or has a schema major this build does not read.
RunReport read_run_report(const std::filesystem::path& path);

/// report.json as JSON, and the file it came from (`path`, or path/report.json for a directory).
/// InputError as read_run_report's for a file missing or not JSON.
struct ReportDocument {
  nlohmann::json doc;
  std::filesystem::path file;
};
ReportDocument read_report_document(const std::filesystem::path& path);

/// The same from a report.json document already parsed; `source` names it in messages.
RunReport run_report_from_json(const nlohmann::json& doc, const std::string& source);

}  // namespace opcert
