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

std::string three_digits(double v) {
  if (v >= 100) return fmt::format("{:.0f}", v);
  if (v >= 10) return fmt::format("{:.1f}", v);
  if (v >= 1 || v == 0) return fmt::format("{:.2f}", v);
  if (v >= 0.001) return fmt::format("{:.3f}", v);
  return fmt::format("{:.2e}", v);
}

std::string format_duration(double seconds) {
  if (seconds < 1e-6) return three_digits(seconds * 1e9) + " ns";
  if (seconds < 1e-3) return three_digits(seconds * 1e6) + " us";
  if (seconds < 1) return three_digits(seconds * 1e3) + " ms";
  return three_digits(seconds) + " s";
}

std::string format_byte_size(double bytes) {
  constexpr const char* kUnits[] = {"", "K", "M", "G", "T"};
  int unit = 0;
  while (bytes >= 1024 && unit < 4) {
    bytes /= 1024;
    ++unit;
  }
  if (unit == 0) return fmt::format("{:.0f}", bytes);
  return bytes == std::floor(bytes) ? fmt::format("{:.0f}{}", bytes, kUnits[unit]) : fmt::format("{:.3g}{}", bytes, kUnits[unit]);
}

}  // namespace opcert
