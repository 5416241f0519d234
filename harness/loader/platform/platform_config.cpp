// Parsing and validation of platform config JSON (the format is in docs/CONFIGS.md).
#include "loader/platform/platform_config.h"

#include <fmt/format.h>

#include <array>
#include <cmath>
#include <initializer_list>
#include <nlohmann/json.hpp>

#include "model/dtype.h"
#include "model/input_error.h"
#include "opkit/op_registry.h"
#include "model/strict_json.h"

namespace opcert {
namespace {

using nlohmann::json;

// Peak compute is also quoted for TF32 tensor-core math, which has no storage dtype of its own.
constexpr std::string_view kTf32 = "tf32";

std::string join(const auto& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + std::string(n);
  return out;
}

bool is_catalogue_op(std::string_view op) { return find_op(op) != nullptr; }

std::string catalogue_op_names() { return registered_op_names(); }

// The ABI's dtype names, for listing in messages (validation itself goes through parse_dtype). Read
// from the table, never by casting integers the enum does not hold (undefined: the fuzzer's UBSan).
std::vector<std::string> dtype_names() { return all_dtype_names(); }

// "a string", "an object", or the number itself, for "must be ..., not <this>" messages.
std::string describe(const json& value) {
  switch (value.type()) {
    case json::value_t::string:
      return "a string";
    case json::value_t::object:
      return "an object";
    case json::value_t::array:
      return "an array";
    case json::value_t::boolean:
      return value.get<bool>() ? "true" : "false";
    case json::value_t::null:
      return "null";
    default:
      return value.dump();
  }
}

bool matches(std::string_view text, std::string_view allowed_punctuation) {
  if (text.empty()) return false;
  for (char c : text) {
    const bool ok =
        (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || allowed_punctuation.find(c) != std::string_view::npos;
    if (!ok) return false;
  }
  return true;
}

// Validates one platform object; `source` prefixes messages and `prefix` ("" or "[i].") starts
// every field path, so a message always names the file and the full dotted field.
class PlatformReader {
 public:
  PlatformReader(const std::string& source, std::string prefix) : source_(source), prefix_(std::move(prefix)) {}

  PlatformConfig read(const json& doc) const {
    require_object(doc, "");
    known_fields(doc, "",
                 {"name", "description", "device", "backend", "peer", "implementations", "tolerances", "peaks",
                  "environment", "gates"});
    PlatformConfig c;
    c.name = required_string(doc, "name");
    if (!matches(c.name, "-"))
      fail("field '{}' must use only lowercase letters, digits and '-', not \"{}\"", path("name"), c.name);
    c.backend = required_string(doc, "backend");
    if (!matches(c.backend, "_"))
      fail("field '{}' must be a backend name (lowercase letters, digits and '_'), not \"{}\"", path("backend"),
           c.backend);
    c.peer = optional_string(doc, "peer");
    if (doc.contains("peer") && !matches(c.peer, "_"))
      fail("field '{}' must be a backend name (lowercase letters, digits and '_'), not \"{}\"", path("peer"), c.peer);
    c.description = optional_string(doc, "description");
    c.device = optional_string(doc, "device");
    if (doc.contains("implementations")) c.implementations = implementations(doc["implementations"], c.backend);
    if (doc.contains("tolerances")) c.tolerances = tolerances(doc["tolerances"]);
    if (doc.contains("peaks")) c.peaks = peaks(doc["peaks"]);
    if (doc.contains("environment")) c.environment = environment(doc["environment"]);
    if (doc.contains("gates")) c.gates = gates(doc["gates"]);
    c.source = source_;
    return c;
  }

 private:
  template <typename... Args>
  [[noreturn]] void fail(fmt::format_string<Args...> format, Args&&... args) const {
    throw InputError(one_line(source_ + ": " + fmt::format(format, std::forward<Args>(args)...)));
  }

  std::string path(std::string_view field) const { return prefix_ + std::string(field); }

  void require_object(const json& value, const std::string& field) const {
    if (value.is_object()) return;
    if (field.empty()) fail("{}a platform config must be a JSON object, not {}", at(), describe(value));
    fail("field '{}' must be an object, not {}", path(field), describe(value));
  }

  // "[1]: " for an array element, "" for a whole-file object.
  std::string at() const { return prefix_.empty() ? "" : prefix_.substr(0, prefix_.size() - 1) + ": "; }

  void known_fields(const json& object, const std::string& where, std::initializer_list<std::string_view> known) const {
    for (const auto& [key, value] : object.items()) {
      bool found = false;
      for (auto k : known) found = found || key == k;
      if (!found) fail("unknown field '{}' (known: {})", path(where + key), join(known));
    }
  }

  std::string required_string(const json& doc, const char* field) const {
    if (!doc.contains(field))
      fail("missing field '{}'; every platform needs a {} (see docs/CONFIGS.md)", path(field), field);
    return string_value(doc[field], field);
  }

  std::string optional_string(const json& doc, const char* field) const {
    return doc.contains(field) ? string_value(doc[field], field) : std::string();
  }

  std::string string_value(const json& value, const std::string& field) const {
    if (!value.is_string()) {
      if (value.is_number())
        fail("field '{}' must be a string, not {} (quote it: \"{}\")", path(field), describe(value), value.dump());
      fail("field '{}' must be a string, not {}", path(field), describe(value));
    }
    return value.get<std::string>();
  }

  // `positive`: > 0 (peaks); otherwise >= 0 (tolerances). Always finite.
  double number_value(const json& value, const std::string& field, bool positive) const {
    const char* what = positive ? "a positive number" : "a nonnegative number";
    if (!value.is_number()) fail("field '{}' must be {}, not {}", path(field), what, describe(value));
    const double v = value.get<double>();
    if (!std::isfinite(v) || v < 0 || (positive && v == 0))
      fail("field '{}' must be {}, not {}", path(field), what, describe(value));
    return v;
  }

  void require_op(const std::string& op, const std::string& field) const {
    if (!is_catalogue_op(op))
      fail("unknown op '{}' in field '{}' (catalogue ops: {})", op, path(field), catalogue_op_names());
  }

  std::map<std::string, std::string> implementations(const json& value, const std::string& backend) const {
    require_object(value, "implementations");
    std::map<std::string, std::string> out;
    for (const auto& [op, key_json] : value.items()) {
      const std::string field = "implementations." + op;
      require_op(op, "implementations");
      const std::string key = string_value(key_json, field);
      // The ABI names keys "<backend>.<op>.<variant>"; a key of another backend or op is a mix-up.
      const std::string stem = backend + "." + op + ".";
      if (!key.starts_with(stem) || key.size() == stem.size())
        fail("field '{}' must be an implementation key \"{}<variant>\" of backend '{}', not \"{}\"", path(field), stem,
             backend, key);
      out.emplace(op, key);
    }
    return out;
  }

  std::map<std::string, std::map<std::string, ToleranceOverride>> tolerances(const json& value) const {
    require_object(value, "tolerances");
    std::map<std::string, std::map<std::string, ToleranceOverride>> out;
    for (const auto& [op, per_dtype] : value.items()) {
      require_op(op, "tolerances");
      const std::string op_field = "tolerances." + op;
      require_object(per_dtype, op_field);
      for (const auto& [dtype, bounds] : per_dtype.items()) {
        const std::string field = op_field + "." + dtype;
        if (dtype != "*" && !is_declared_dtype(dtype))
          fail("unknown dtype '{}' in field '{}' (known: {}; a conversion as cases declare it, \"<in>-><out>\" such as "
               "\"e4m3->bf16\"; or \"*\" for every dtype)",
               dtype, path(op_field), join(dtype_names()));
        require_object(bounds, field);
        known_fields(bounds, field + ".", {"atol", "rtol"});
        if (bounds.empty()) fail("field '{}' sets nothing; give atol, rtol or both, or remove it", path(field));
        ToleranceOverride t;
        if (bounds.contains("atol")) t.atol = number_value(bounds["atol"], field + ".atol", false);
        if (bounds.contains("rtol")) t.rtol = number_value(bounds["rtol"], field + ".rtol", false);
        out[op].emplace(dtype, t);
      }
    }
    return out;
  }

  PeakFigures peaks(const json& value) const {
    require_object(value, "peaks");
    known_fields(value, "peaks.", {"tflops", "memory_gbps", "link_gbps", "cache_mib"});
    PeakFigures p;
    if (value.contains("tflops")) {
      const json& tflops = value["tflops"];
      require_object(tflops, "peaks.tflops");
      for (const auto& [dtype, figure] : tflops.items()) {
        if (dtype != kTf32 && !parse_dtype(dtype))
          fail("unknown dtype '{}' in field '{}' (known: {}, {})", dtype, path("peaks.tflops"), join(dtype_names()),
               kTf32);
        p.tflops.emplace(dtype, number_value(figure, "peaks.tflops." + dtype, true));
      }
    }
    if (value.contains("memory_gbps")) p.memory_gbps = number_value(value["memory_gbps"], "peaks.memory_gbps", true);
    if (value.contains("link_gbps")) p.link_gbps = number_value(value["link_gbps"], "peaks.link_gbps", true);
    if (value.contains("cache_mib")) p.cache_mib = number_value(value["cache_mib"], "peaks.cache_mib", true);
    return p;
  }

  GateThresholds gates(const json& value) const {
    require_object(value, "gates");
    known_fields(value, "gates.", {"fail_on", "max_slowdown_pct", "min_peer_ratio", "max_alignment_growth"});
    GateThresholds g;
    if (value.contains("fail_on")) {
      const json& list = value["fail_on"];
      if (!list.is_array()) fail("field '{}' must be an array of gate names, not {}", path("gates.fail_on"), describe(list));
      for (const auto& gate : list) {
        const std::string name = string_value(gate, "gates.fail_on[]");
        if (name != "status" && name != "perf" && name != "alignment" && name != "peer_ratio")
          fail("unknown gate '{}' in field '{}' (known: status, perf, alignment, peer_ratio)", name,
               path("gates.fail_on"));
        g.fail_on.push_back(name);
      }
    }
    if (value.contains("max_slowdown_pct"))
      g.max_slowdown = number_value(value["max_slowdown_pct"], "gates.max_slowdown_pct", false) / 100.0;
    if (value.contains("min_peer_ratio"))
      g.min_peer_ratio = number_value(value["min_peer_ratio"], "gates.min_peer_ratio", true);
    if (value.contains("max_alignment_growth"))
      g.max_alignment_growth = number_value(value["max_alignment_growth"], "gates.max_alignment_growth", true);
    return g;
  }

  std::map<std::string, std::string> environment(const json& value) const {
    require_object(value, "environment");
    std::map<std::string, std::string> out;
    for (const auto& [name, setting] : value.items()) {
      if (name.empty() || name.find('=') != std::string::npos)
        fail("field '{}' has an invalid variable name \"{}\" (empty or containing '=')", path("environment"), name);
      out.emplace(name, string_value(setting, "environment." + name));
    }
    return out;
  }

  const std::string& source_;
  std::string prefix_;
};

}  // namespace

ToleranceOverride PlatformConfig::tolerance_for(std::string_view op, std::string_view dtype) const {
  ToleranceOverride out;
  auto per_op = tolerances.find(std::string(op));
  if (per_op == tolerances.end()) return out;
  // The dtype's own entry first, then "*" fills what it left unset.
  for (std::string_view key : {dtype, std::string_view("*")}) {
    auto entry = per_op->second.find(std::string(key));
    if (entry == per_op->second.end()) continue;
    if (!out.atol) out.atol = entry->second.atol;
    if (!out.rtol) out.rtol = entry->second.rtol;
  }
  return out;
}

PlatformConfig parse_platform_config(std::string_view json_text, const std::string& source) {
  return PlatformReader(source, "").read(parse_strict_json(json_text, source));
}

std::vector<PlatformConfig> parse_platform_configs(std::string_view json_text, const std::string& source) {
  const json doc = parse_strict_json(json_text, source);
  if (!doc.is_array()) return {PlatformReader(source, "").read(doc)};
  std::vector<PlatformConfig> out;
  for (std::size_t i = 0; i < doc.size(); ++i) {
    out.push_back(PlatformReader(source, fmt::format("[{}].", i)).read(doc[i]));
    for (std::size_t j = 0; j < i; ++j)
      if (out[j].name == out[i].name)
        throw InputError(
            fmt::format("{}: platform '{}' is defined twice, at [{}] and [{}]; keep one", source, out[i].name, j, i));
  }
  return out;
}

}  // namespace opcert
