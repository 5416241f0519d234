// report.json: the whole run as one versioned document (reports/schema/report.schema.json).
#pragma once

#include <nlohmann/json.hpp>

#include "reports/run_report.h"

namespace opcert {

/// The version of report.json's layout: the minor grows when fields are added, the major when a
/// field changes meaning or goes away.
inline constexpr const char* kReportSchemaVersion = "2.12";

/// RunReport::kind of `opcert bench`: report.json then also holds "benchmarks" and "bench_settings".
inline constexpr const char* kBenchReportKind = "opcert-bench-report";

/// A bridged backend's package as every document records it ({name, version, sha256}), null for a
/// library that holds its own code.
nlohmann::json package_json(const PackageIdentity& package);

/// The report.json document; make_json_report_writer() writes it, indented.
nlohmann::json report_to_json(const RunReport& report);

}  // namespace opcert
