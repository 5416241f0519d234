#include "model/attr.h"

#include <fmt/format.h>

#include <stdexcept>

namespace opcert {

int64_t attr_int(const Attrs& attrs, const std::string& name, int64_t fallback) {
  auto it = attrs.find(name);
  if (it == attrs.end()) return fallback;
  if (const auto* v = std::get_if<int64_t>(&it->second)) return *v;
  throw std::invalid_argument(fmt::format("attribute '{}' must be an integer", name));
}

double attr_float(const Attrs& attrs, const std::string& name, double fallback) {
  auto it = attrs.find(name);
  if (it == attrs.end()) return fallback;
  if (const auto* v = std::get_if<double>(&it->second)) return *v;
  if (const auto* v = std::get_if<int64_t>(&it->second)) return static_cast<double>(*v);
  throw std::invalid_argument(fmt::format("attribute '{}' must be a number", name));
}

std::string attr_string(const Attrs& attrs, const std::string& name, const std::string& fallback) {
  auto it = attrs.find(name);
  if (it == attrs.end()) return fallback;
  if (const auto* v = std::get_if<std::string>(&it->second)) return *v;
  throw std::invalid_argument(fmt::format("attribute '{}' must be a string", name));
}

std::string attr_text(const AttrValue& value) {
  struct {
    std::string operator()(int64_t v) const { return std::to_string(v); }
    std::string operator()(double v) const { return fmt::format("{}", v); }
    std::string operator()(const std::string& v) const { return "\"" + v + "\""; }
    std::string operator()(const std::vector<int64_t>& v) const { return fmt::format("[{}]", fmt::join(v, ", ")); }
  } visitor;
  return std::visit(visitor, value);
}

}  // namespace opcert
