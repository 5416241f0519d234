// How a measured double appears in reports: JSON has no NaN or infinity, and text tables want a
// short, fixed number of digits.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace opcert {

/// A finite value as a JSON number; NaN and infinities as "nan", "inf", "-inf" (the encoding of
/// model/case_result_json.h, so every report reads the same way).
nlohmann::json json_number(double value);
/// json_number(*value), or null when absent.
nlohmann::json json_number(const std::optional<double>& value);

/// `value` with `digits` significant digits ("nan", "inf", "-inf" spelled out).
std::string text_number(double value, int digits = 6);
/// text_number(*value, digits), or `absent` when there is no value.
std::string text_number(const std::optional<double>& value, int digits = 4, const std::string& absent = "-");

/// The larger error figure of the two; NaN counts as the worst possible, an absent one as the best.
std::optional<double> worse_of(const std::optional<double>& a, const std::optional<double>& b);

/// Serialises `doc` for a report file. Invalid UTF-8 in strings (a backend's error text) becomes
/// U+FFFD instead of an exception: a report is never lost to one bad byte.
std::string dump_json(const nlohmann::json& doc, int indent = -1);

}  // namespace opcert
