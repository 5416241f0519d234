#include "reports/number_format.h"

#include <fmt/format.h>

#include <cmath>

#include "model/case_result_json.h"

namespace opcert {

nlohmann::json json_number(double value) { return number_to_json(value); }

nlohmann::json json_number(const std::optional<double>& value) {
  return value ? json_number(*value) : nlohmann::json(nullptr);
}

std::string text_number(double value, int digits) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  return fmt::format("{:.{}g}", value, digits);
}

std::string text_number(const std::optional<double>& value, int digits, const std::string& absent) {
  return value ? text_number(*value, digits) : absent;
}

std::optional<double> worse_of(const std::optional<double>& a, const std::optional<double>& b) {
  if (!a) return b;
  if (!b) return a;
  if (std::isnan(*a)) return a;
  if (std::isnan(*b)) return b;
  return *a >= *b ? a : b;
}

std::string dump_json(const nlohmann::json& doc, int indent) {
  return doc.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace opcert
