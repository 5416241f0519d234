#include "check/suite.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>

#include "check/case_id.h"
#include "loader/file_digest.h"
#include "loader/install_layout.h"
#include "model/dtype.h"
#include "model/checked_size.h"
#include "model/input_error.h"
#include "opkit/case_size.h"
#include "opkit/op_registry.h"
#include "model/strict_json.h"
#include "model/text_file.h"

namespace opcert {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const std::set<std::string> kSuiteFields{"suite_format", "description", "defaults", "tags", "cases"};
const std::set<std::string> kCaseFields{"op", "id", "tags", "params", "grid"};

[[noreturn]] void input_error(const std::string& message) { throw InputError(one_line(message)); }

std::string names(const std::set<std::string>& items) { return fmt::format("{}", fmt::join(items, ", ")); }

std::vector<std::string> string_list(const json& v, const std::string& where) {
  std::vector<std::string> out;
  if (v.is_array())
    for (const auto& e : v)
      if (e.is_string()) out.push_back(e.get<std::string>());
  if (!v.is_array() || out.size() != v.size()) input_error(fmt::format("{} must be a list of strings", where));
  return out;
}

void check_fields(const json& object, const std::set<std::string>& known, const std::string& where) {
  for (const auto& [key, _] : object.items())
    if (!known.contains(key)) input_error(fmt::format("{}: unknown field '{}'; known: {}", where, key, names(known)));
}

// A file path when it names one (or ends in .json); otherwise a suite name on the search path.
std::string resolve(const std::string& name_or_path) {
  std::error_code ec;
  if (fs::is_regular_file(name_or_path, ec)) return name_or_path;
  if (name_or_path.ends_with(".json")) input_error(fmt::format("suite file '{}' not found", name_or_path));
  const auto dirs = suite_search_path();
  for (const auto& dir : dirs) {
    const fs::path candidate = fs::path(dir) / (name_or_path + ".json");
    if (fs::is_regular_file(candidate, ec)) return candidate.string();
  }
  const auto available = available_suites();
  input_error(fmt::format("no suite named '{}' (searched {}); available: {}", name_or_path,
                          dirs.empty() ? std::string("nothing") : fmt::format("{}", fmt::join(dirs, ":")),
                          available.empty() ? std::string("none") : fmt::format("{}", fmt::join(available, ", "))));
}

std::string read_file(const std::string& path) {
  std::optional<std::string> text = read_text_file(path);
  if (!text) input_error(fmt::format("cannot read suite file '{}'", path));
  return std::move(*text);
}

// Suite-wide defaults: plain parameters for every case, and per-op objects keyed by op name.
struct Defaults {
  json all = json::object();
  std::map<std::string, json> per_op;
};

Defaults read_defaults(const json& suite, const std::string& file) {
  Defaults d;
  if (!suite.contains("defaults")) return d;
  const auto& defaults = suite["defaults"];
  if (!defaults.is_object()) input_error(fmt::format("{}: defaults must be an object", file));
  for (const auto& [key, value] : defaults.items()) {
    if (find_op(key)) {
      if (!value.is_object())
        input_error(fmt::format("{}: defaults.{} must be an object of {} parameters", file, key, key));
      d.per_op[key] = value;
    } else {
      d.all[key] = value;
    }
  }
  return d;
}

// Every combination of the grid's values, the last key varying fastest (keys in sorted order).
std::vector<json> grid_points(const json& grid, const std::string& where) {
  std::vector<json> points{json::object()};
  if (!grid.is_object()) input_error(fmt::format("{}: grid must be an object of parameter -> list of values", where));
  for (const auto& [key, values] : grid.items()) {
    if (!values.is_array() || values.empty())
      input_error(fmt::format("{}: grid.{} must be a non-empty list of values", where, key));
    std::vector<json> next;
    for (const auto& point : points)
      for (const auto& v : values) {
        json p = point;
        p[key] = v;
        next.push_back(std::move(p));
      }
    points = std::move(next);
  }
  return points;
}

// The parameters whose values give an oversized operand's dimensions: an integer equal to one of
// them, or a list of integers holding one (dimensions of 1 name nothing). "parameters 'm', 'n': "
std::string size_parameters(const SizeError& e, const json& params) {
  std::set<int64_t> dims;
  for (int64_t d : e.shape())
    if (d > 1) dims.insert(d);
  const auto is_dim = [&](const json& v) { return v.is_number_integer() && dims.contains(v.get<int64_t>()); };
  std::vector<std::string> found;
  for (const auto& [key, value] : params.items()) {
    bool hit = is_dim(value);
    if (value.is_array())
      for (const auto& item : value) hit = hit || is_dim(item);
    if (hit) found.push_back("'" + key + "'");
  }
  if (found.empty()) return "";
  return fmt::format("parameter{} {}: ", found.size() > 1 ? "s" : "", fmt::join(found, ", "));
}

bool valid_id(const std::string& id) {
  if (id.empty()) return false;
  for (unsigned char ch : id)
    if (ch <= 0x20 || ch == 0x7f) return false;
  return true;
}

class Expander {
 public:
  Expander(Suite& suite, uint64_t seed, Defaults defaults, std::vector<std::string> suite_tags)
      : suite_(suite), seed_(seed), defaults_(std::move(defaults)), suite_tags_(std::move(suite_tags)) {}

  void expand(const json& entry, std::size_t index) {
    const std::string where = fmt::format("{}: cases[{}]", suite_.path, index);
    if (!entry.is_object()) input_error(fmt::format("{} must be an object with at least \"op\"", where));
    check_fields(entry, kCaseFields, where);
    if (!entry.contains("op") || !entry["op"].is_string())
      input_error(fmt::format("{}: missing \"op\" (one of {})", where, registered_op_names()));
    const auto op = entry["op"].get<std::string>();
    const OpDescriptor* builder = find_op(op);
    if (!builder) input_error(fmt::format("{}: unknown op '{}'; known ops: {}", where, op, registered_op_names()));

    json params = defaults_.all;
    if (auto it = defaults_.per_op.find(op); it != defaults_.per_op.end()) params.update(it->second);
    json own = entry.value("params", json::object());
    if (!own.is_object()) input_error(fmt::format("{}: params must be an object", where));
    params.update(own);

    std::vector<std::string> tags = suite_tags_;
    if (entry.contains("tags"))
      for (auto& t : string_list(entry["tags"], where + ": tags")) tags.push_back(std::move(t));

    std::optional<std::string> explicit_id;
    if (entry.contains("id")) {
      if (!entry["id"].is_string() || !valid_id(entry["id"].get<std::string>()))
        input_error(fmt::format("{}: id must be a non-empty string without spaces", where));
      explicit_id = entry["id"].get<std::string>();
    }

    const json grid = entry.value("grid", json::object());
    std::set<std::string> grid_keys;
    for (const auto& [key, _] : grid.items()) {
      if (own.contains(key)) input_error(fmt::format("{}: parameter '{}' is in both params and grid; keep one", where, key));
      grid_keys.insert(key);
    }
    const bool has_grid = !grid_keys.empty();
    const auto points = grid_points(grid, where);
    for (std::size_t g = 0; g < points.size(); ++g) {
      json p = params;
      p.update(points[g]);
      std::string id;
      if (explicit_id && has_grid)
        id = *explicit_id + "." + id_tokens(builder->params(), p, &grid_keys);
      else if (explicit_id)
        id = *explicit_id;
      else if (auto tokens = id_tokens(builder->params(), p); !tokens.empty())
        id = op + "." + tokens;
      else
        id = op;
      const std::string label = has_grid ? fmt::format("cases[{}] (grid point {})", index, g) : fmt::format("cases[{}]", index);
      add(*builder, std::move(id), label, p, tags, index);
    }
  }

 private:
  void add(const OpDescriptor& builder, std::string id, const std::string& label, const json& params,
           const std::vector<std::string>& tags, std::size_t index) {
    if (auto [it, inserted] = seen_.emplace(id, label); !inserted)
      input_error(fmt::format("{}: duplicate case id '{}' from {} and {}; give one of them an explicit \"id\"", suite_.path,
                              id, it->second, label));
    Case c;
    c.suite = suite_.name;
    c.id = id;
    c.op = std::string(builder.name);
    c.seed = seed_;
    c.tags = tags;
    try {
      builder.build(params, c);
      // Reports and tolerance overrides key on it: an op folder must declare it.
      if (!is_declared_dtype(c.dtype))
        throw std::invalid_argument(fmt::format("op '{}' declared dtype '{}' for it, which is not a dtype label", c.op, c.dtype));
      // Refused here, never run: a size past 64 bits once wrapped to 0 elements and PASSED.
      opkit::require_case_fits(c);
    } catch (const SizeError& e) {
      input_error(fmt::format("{}: cases[{}] ({}): {}{}", suite_.path, index, id, size_parameters(e, params), e.what()));
    } catch (const std::invalid_argument& e) {
      input_error(fmt::format("{}: cases[{}] ({}): {}", suite_.path, index, id, e.what()));
    } catch (const nlohmann::json::exception& e) {
      input_error(fmt::format("{}: cases[{}] ({}): {}", suite_.path, index, id, e.what()));
    }
    suite_.cases.push_back(std::move(c));
  }

  Suite& suite_;
  uint64_t seed_;
  Defaults defaults_;
  std::vector<std::string> suite_tags_;
  std::map<std::string, std::string> seen_;  // id -> where it came from
};

void append_split(std::vector<std::string>& out, const std::string& list) {
  std::size_t start = 0;
  while (start <= list.size()) {
    const auto end = std::min(list.find(':', start), list.size());
    if (end > start) out.push_back(list.substr(start, end - start));
    start = end + 1;
  }
}

}  // namespace

std::vector<std::string> suite_search_path() {
  std::vector<std::string> dirs;
  if (const char* env = std::getenv("OPCERT_SUITE_PATH")) append_split(dirs, env);
  // An installed opcert reads its own suites, wherever the prefix was moved, never the source tree
  // it was built from; a build tree's reads the source tree's.
  if (const auto installed = installed_data_dir()) {
    dirs.push_back((*installed / "suites").string());
    return dirs;
  }
#ifdef OPCERT_SOURCE_SUITES_DIR
  dirs.emplace_back(OPCERT_SOURCE_SUITES_DIR);
#endif
  return dirs;
}

std::vector<std::string> available_suites() {
  std::set<std::string> found;
  for (const auto& dir : suite_search_path()) {
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) continue;
    for (fs::recursive_directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec), end; !ec && it != end;
         it.increment(ec)) {
      if (!it->is_regular_file(ec) || it->path().extension() != ".json") continue;
      auto relative = fs::relative(it->path(), dir, ec);
      if (ec) continue;
      relative.replace_extension();
      // suites/certify/ holds certification plans (docs/CERTIFY.md), which name suites.
      if (relative.generic_string().rfind("certify/", 0) == 0) continue;
      found.insert(relative.generic_string());
    }
  }
  return {found.begin(), found.end()};
}

Suite load_suite(const std::string& name_or_path, uint64_t seed) {
  Suite suite;
  suite.name = name_or_path;
  suite.path = resolve(name_or_path);
  const json doc = parse_strict_json(read_file(suite.path), suite.path);
  const std::string& file = suite.path;

  if (!doc.is_object()) input_error(fmt::format("{}: a suite must be a JSON object with \"suite_format\" and \"cases\"", file));
  check_fields(doc, kSuiteFields, file);
  if (!doc.contains("suite_format") || !doc["suite_format"].is_string() ||
      !doc["suite_format"].get<std::string>().starts_with("1."))
    input_error(fmt::format("{}: suite_format must be \"1.0\" (this opcert reads suite format 1.x), found {}", file,
                            doc.contains("suite_format") ? doc["suite_format"].dump() : std::string("none")));
  if (doc.contains("description") && !doc["description"].is_string())
    input_error(fmt::format("{}: description must be a string", file));
  if (!doc.contains("cases") || !doc["cases"].is_array()) input_error(fmt::format("{}: cases must be a list of case entries", file));
  std::vector<std::string> tags;
  if (doc.contains("tags")) tags = string_list(doc["tags"], file + ": tags");

  Expander expander(suite, seed, read_defaults(doc, file), tags);
  const auto& cases = doc["cases"];
  for (std::size_t i = 0; i < cases.size(); ++i) expander.expand(cases[i], i);

  try {
    suite.sha256 = sha256_file_hex(suite.path);
  } catch (const std::runtime_error& e) {
    input_error(e.what());
  }
  return suite;
}

std::string suite_folder_name(const std::string& suite, uint64_t seed) {
  std::string name = suite.ends_with(".json") ? fs::path(suite).stem().string() : suite;
  for (char& c : name)
    if (c == '/' || c == '\\' || c == ' ') c = '-';
  return fmt::format("{}.seed{}", name, seed);
}

}  // namespace opcert
