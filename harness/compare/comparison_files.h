// `opcert compare`'s machine outputs: --json (reports/schema/compare.schema.json) and --junit
// (JUnit XML: each gated row a test case, each gate failure a failed one, so a CI system shows a
// regression without a plugin).
#pragma once

#include <nlohmann/json.hpp>

#include <string>

#include "compare/comparison.h"

namespace opcert {

inline constexpr const char* kCompareSchemaVersion = "1.0";

nlohmann::json comparison_json(const Comparison& comparison, int exit_code);
std::string comparison_junit(const Comparison& comparison);

}  // namespace opcert
