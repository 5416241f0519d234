#include "check/case_id.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace opcert {
namespace {

using nlohmann::json;

std::string scalar_token(const json& v) {
  if (v.is_number_float()) {
    const double d = v.get<double>();
    if (std::isfinite(d) && d == std::floor(d) && std::fabs(d) < 1e15) return fmt::format("{}", static_cast<int64_t>(d));
    return fmt::format("{}", d);
  }
  if (v.is_string()) return v.get<std::string>();
  return v.dump();
}

// fp8 dtypes by their short names, whichever spelling the suite used.
json canonical(const json& v) {
  if (v == "fp8_e4m3fn") return "e4m3";
  if (v == "fp8_e5m2") return "e5m2";
  return v;
}

// See id_tokens in case_id.h for the shape of each token.
std::string token(const std::string& name, const json& v) {
  if (v.is_boolean()) return v.get<bool>() ? name : "no" + name;
  if (v.is_string()) return canonical(v).get<std::string>();
  if (v.is_array()) {
    const bool all_strings = !v.empty() && std::all_of(v.begin(), v.end(), [](const json& e) { return e.is_string(); });
    std::string out = all_strings ? "" : name;
    for (std::size_t i = 0; i < v.size(); ++i) out += (i == 0 ? "" : "_") + scalar_token(v[i]);
    return v.empty() ? "no" + name : out;
  }
  return name + scalar_token(v);
}

}  // namespace

std::string id_tokens(std::span<const ParamDef> table, const json& params, const std::set<std::string>* only) {
  std::string out;
  for (const auto& def : table) {
    if (only && !only->contains(def.name)) continue;
    auto it = params.find(def.name);
    const json* value = it != params.end() ? &*it : (def.always_in_id ? &def.fallback : nullptr);
    if (!value) continue;
    // A parameter asked for by name is named even at its default (grid ids stay distinct).
    const bool at_default = !def.fallback.is_null() && canonical(*value) == canonical(def.fallback);
    if (!only && !def.always_in_id && at_default) continue;
    if (!out.empty()) out += '.';
    out += token(def.name, *value);
  }
  return out;
}

}  // namespace opcert
