// The catalog of platforms: built-ins, then files merged over them by name.
#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "loader/platform/builtin_platforms.h"
#include "loader/platform/platform_config.h"
#include "model/strict_json.h"
#include "model/input_error.h"
#include "model/text_file.h"

namespace opcert {
namespace {

[[noreturn]] void cannot_read(const std::string& path, int error) {
  throw InputError(
      fmt::format("{}: cannot read platform config: {}; check the path given by --platform-config or "
                  "OPCERT_PLATFORM_JSON",
                  path, std::strerror(error)));
}

std::string read_file(const std::string& path) {
  // A directory opens as a file without complaint, so check first for a clear message.
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) cannot_read(path, EISDIR);
  std::optional<std::string> text = read_text_file(path);
  if (!text) cannot_read(path, errno);
  return std::move(*text);
}

// Parsed once per process: the embedded texts never change while it runs.
PlatformCatalog parse_builtins() {
  PlatformCatalog catalog;
  for (const auto& file : builtin_platform_files()) {
    const std::string where = std::string(file.path) + " (built-in)";
    for (auto& config : parse_platform_configs(file.text, where)) {
      // Built-ins never replace each other: two files with one name is a mistake in configs/.
      if (catalog.find(config.name))
        throw InputError(
            fmt::format("{}: platform '{}' is already defined by another built-in file", where, config.name));
      config.source = "built-in";
      catalog.merge(std::move(config));
    }
  }
  return catalog;
}

}  // namespace

const PlatformCatalog& PlatformCatalog::builtin() {
  static const PlatformCatalog catalog = parse_builtins();
  return catalog;
}

void PlatformCatalog::merge(PlatformConfig config) {
  auto it = std::lower_bound(platforms_.begin(), platforms_.end(), config.name,
                             [](const PlatformConfig& p, const std::string& name) { return p.name < name; });
  if (it != platforms_.end() && it->name == config.name)
    *it = std::move(config);  // whole replacement: nothing of the old platform survives
  else
    platforms_.insert(it, std::move(config));
}

void PlatformCatalog::merge_file(const std::string& path) { merge_text(read_file(path), path); }

void PlatformCatalog::merge_text(std::string_view text, const std::string& source) {
  // Parse every platform before merging any, so a bad file leaves the catalog unchanged.
  for (auto& config : parse_platform_configs(text, source)) merge(std::move(config));
  merged_.push_back({source, std::string(text)});
}

const PlatformConfig* PlatformCatalog::find(std::string_view name) const {
  auto it = std::lower_bound(platforms_.begin(), platforms_.end(), name,
                             [](const PlatformConfig& p, std::string_view n) { return p.name < n; });
  return it != platforms_.end() && it->name == name ? &*it : nullptr;
}

const PlatformConfig& PlatformCatalog::require(std::string_view name) const {
  if (const auto* config = find(name)) return *config;
  std::string known;
  for (const auto& p : platforms_) known += (known.empty() ? "" : ", ") + p.name;
  throw InputError(one_line(fmt::format("unknown platform '{}' (known: {}); see `opcert list`", name, known)));
}

PlatformCatalog load_platforms(const std::vector<std::string>& extra_files) {
  PlatformCatalog catalog = PlatformCatalog::builtin();
  if (const char* env = std::getenv("OPCERT_PLATFORM_JSON")) {
    std::string_view list(env);
    // ':'-separated like PATH; empty entries (a stray or trailing ':') name no file.
    while (!list.empty()) {
      const auto colon = list.find(':');
      const auto entry = list.substr(0, colon);
      if (!entry.empty()) catalog.merge_file(std::string(entry));
      list = colon == std::string_view::npos ? std::string_view() : list.substr(colon + 1);
    }
  }
  for (const auto& path : extra_files) catalog.merge_file(path);
  return catalog;
}

}  // namespace opcert
