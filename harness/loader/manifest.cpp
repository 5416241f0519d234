#include "loader/manifest.h"

#include <fmt/format.h>

#include <charconv>
#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <regex>

#include "model/input_error.h"
#include "model/strict_json.h"
#include "model/text_file.h"

namespace opcert {
namespace {

using nlohmann::json;

const json& require_field(const json& object, const char* field, json::value_t type, const std::string& where,
                          const std::string& path) {
  auto it = object.find(field);
  if (it == object.end()) throw InputError(fmt::format("{}: missing field '{}'", path, where + field));
  const bool ok = it->type() == type ||
                  (type == json::value_t::number_integer && it->type() == json::value_t::number_unsigned);
  if (!ok)
    throw InputError(fmt::format("{}: field '{}' must be a {}, not {}", path, where + field,
                                 json(type).type_name(), it->type_name()));
  return *it;
}

void reject_unknown(const json& object, std::initializer_list<const char*> known, const std::string& where,
                    const std::string& path) {
  for (const auto& [key, value] : object.items()) {
    bool found = false;
    for (const char* k : known) found = found || key == k;
    if (!found) {
      std::string list;
      for (const char* k : known) list += (list.empty() ? "" : ", ") + std::string(k);
      throw InputError(fmt::format("{}: unknown field '{}{}' (known: {})", path, where, key, list));
    }
  }
}

// "1.0" or "1.0.0" (decimal numbers and dots, nothing else) -> {major, minor}.
std::pair<int, int> parse_version(const std::string& text, const std::string& field, const std::string& path) {
  static const std::regex kVersion(R"((\d+)\.(\d+)(\.\d+)?)");
  std::smatch m;
  int major = 0, minor = 0;
  const auto number = [&](int group, int& out) {
    const char* first = text.data() + m.position(group);
    return std::from_chars(first, first + m.length(group), out).ec == std::errc();
  };
  if (!std::regex_match(text, m, kVersion) || !number(1, major) || !number(2, minor))
    throw InputError(fmt::format("{}: field '{}' must look like \"1.0\", not \"{}\"", path, field, text));
  return {major, minor};
}

}  // namespace

PluginManifest parse_manifest(std::string_view text, const std::string& path) {
  const json doc = parse_strict_json(text, path);
  if (!doc.is_object()) throw InputError(fmt::format("{}: a plugin manifest must be a JSON object", path));
  const auto& format = require_field(doc, "file_format_version", json::value_t::string, "", path);
  const auto [format_major, format_minor] = parse_version(format.get<std::string>(), "file_format_version", path);
  if (format_major != kManifestFormatMajor)
    throw InputError(fmt::format("{}: manifest file_format_version {} is not supported (this opcert reads {}.x)",
                                 path, format.get<std::string>(), kManifestFormatMajor));
  // A newer minor may add optional fields this host does not know; only at our own minor or
  // older is an unknown field a typo worth refusing.
  const bool strict = format_minor <= kManifestFormatMinor;
  if (strict) reject_unknown(doc, {"file_format_version", "backend"}, "", path);

  const auto& backend = require_field(doc, "backend", json::value_t::object, "", path);
  if (strict) reject_unknown(backend, {"name", "library_path", "python", "abi_version"}, "backend.", path);

  PluginManifest m;
  m.manifest_path = path;
  m.backend_name = require_field(backend, "name", json::value_t::string, "backend.", path).get<std::string>();
  if (m.backend_name.empty()) throw InputError(fmt::format("{}: field 'backend.name' is empty", path));

  if (backend.contains("python")) {
    if (backend.contains("library_path"))
      throw InputError(fmt::format("{}: give 'backend.library_path' or 'backend.python', not both", path));
    m.python_entry = require_field(backend, "python", json::value_t::string, "backend.", path).get<std::string>();
    if (m.python_entry.empty()) throw InputError(fmt::format("{}: field 'backend.python' is empty", path));
  } else {
    const auto library =
        require_field(backend, "library_path", json::value_t::string, "backend.", path).get<std::string>();
    if (library.empty()) throw InputError(fmt::format("{}: field 'backend.library_path' is empty", path));
    std::filesystem::path lib(library);
    m.library_path =
        (lib.is_absolute() ? lib : std::filesystem::path(path).parent_path() / lib).lexically_normal().string();
  }

  const auto abi = require_field(backend, "abi_version", json::value_t::string, "backend.", path).get<std::string>();
  std::tie(m.abi_major, m.abi_minor) = parse_version(abi, "backend.abi_version", path);
  return m;
}

PluginManifest read_manifest(const std::string& path) {
  const std::optional<std::string> text = read_text_file(path);
  if (!text) throw InputError(fmt::format("{}: cannot read manifest: {}", path, std::strerror(errno)));
  return parse_manifest(*text, path);
}

}  // namespace opcert
