// The outputs of `opcert selftest` (docs/CLI.md, "selftest"): the terminal's table, selftest.md
// (the table docs/TOLERANCES.md carries) and selftest.json.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "selftest/mutant_detection.h"

namespace opcert {

/// One row per mutant (op, slip, cases that catch it of those judged, the first catching case and
/// its reason), then every escaped mutant and twin alarm, then the detection rate.
std::string detection_text(const DetectionSummary& summary);

/// The same as a Markdown table, for docs/TOLERANCES.md.
std::string detection_markdown(const DetectionSummary& summary);

/// kind "opcert-selftest", schema 1.0: suites, rate, every mutant with its catching cases, twin alarms.
nlohmann::json detection_json(const DetectionSummary& summary);

}  // namespace opcert
