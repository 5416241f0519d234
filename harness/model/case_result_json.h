// CaseResult <-> JSON, the one encoding used by the worker protocol, results.jsonl and reports
// (reports/schema/ describes it).
#pragma once

#include <nlohmann/json.hpp>

#include <optional>

#include "model/case_result.h"

namespace opcert {

nlohmann::json to_json(const CaseResult& result);

/// A measure as every report encodes it (JSON has no NaN or infinity): a number, or "nan", "inf",
/// "-inf"; empty for null. Throws std::invalid_argument for anything else.
std::optional<double> number_from_json(const nlohmann::json& value);

/// Its inverse, the one encoder of numbers in opcert's JSON: a JSON number, or "nan", "inf", "-inf"
/// (JSON has no NaN or infinity).
nlohmann::json number_to_json(double value);
/// Throws std::runtime_error naming the field when `doc` is not a well-formed result.
CaseResult case_result_from_json(const nlohmann::json& doc);

/// A device tag as results and benchmarks carry it: {"index", "name", "host"}; and back (throws
/// JsonFieldError for a malformed one).
nlohmann::json device_tag_json(const DeviceTag& device);
DeviceTag device_tag_from_json(const nlohmann::json& doc);

}  // namespace opcert
