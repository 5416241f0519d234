#include "loader/plugin_discovery.h"

#include <fmt/format.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <set>

#include "loader/file_digest.h"
#include "loader/manifest.h"

namespace opcert {
namespace fs = std::filesystem;

namespace {

// Identity of a file independent of the path used to reach it (symlinks, "..", hard links).
struct FileId {
  dev_t device;
  ino_t inode;
  auto operator<=>(const FileId&) const = default;
};

class PluginLoader {
 public:
  PluginLoader(Registry& registry, const DiscoveryOptions& options) : registry_(registry), options_(options) {}

  void scan_directory(const std::string& dir) {
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) {
      registry_.add_unavailable(dir, "plugin directory does not exist or is not a directory");
      return;
    }
    std::vector<fs::path> manifests;
    for (const auto& entry : fs::directory_iterator(dir, ec))
      if (entry.path().extension() == ".json") manifests.push_back(entry.path());
    if (ec) {
      registry_.add_unavailable(dir, "cannot list plugin directory: " + ec.message());
      return;
    }
    std::sort(manifests.begin(), manifests.end());
    for (const auto& path : manifests) load_manifest(path.string());
  }

  void load_manifest(const std::string& path) {
    PluginManifest manifest;
    try {
      manifest = read_manifest(path);
    } catch (const std::exception& e) {
      registry_.add_unavailable(path, e.what());
      return;
    }
    if (manifest.abi_major != OPCERT_ABI_VERSION_MAJOR) {
      registry_.add_unavailable(
          path, fmt::format("ABI major version mismatch: the manifest declares ABI {}.{}, this opcert speaks ABI {}.{}",
                            manifest.abi_major, manifest.abi_minor, OPCERT_ABI_VERSION_MAJOR, OPCERT_ABI_VERSION_MINOR));
      return;
    }
    load_library(manifest.library_path, path, manifest.backend_name);
  }

  void load_library(const std::string& library, const std::string& manifest_path, const std::string& declared_name) {
    const std::string where = manifest_path.empty() ? library : manifest_path;
    struct stat st {};
    if (::stat(library.c_str(), &st) != 0) {
      registry_.add_unavailable(where, fmt::format("library not found: {} ({})", library, std::strerror(errno)));
      return;
    }
    // Already loaded through another path: loading is idempotent. A library that failed through
    // one path is tried again (and its failure listed again) through the next.
    const FileId id{st.st_dev, st.st_ino};
    if (loaded_.count(id) != 0) return;

    std::error_code ec;
    const std::string canonical = fs::canonical(library, ec).string();
    const std::string resolved = ec ? library : canonical;
    if (!options_.allow_insecure_plugins) {
      if (std::string why = insecure_location_reason(resolved); !why.empty()) {
        registry_.add_unavailable(where, why + "; move it, or pass --allow-insecure-plugins if you trust it");
        return;
      }
    }

    BackendSource source;
    source.kind = BackendSource::Kind::kPlugin;
    source.library_path = resolved;
    source.manifest_path = manifest_path;
    source.declared_name = declared_name;
    std::shared_ptr<DynamicLibrary> lib;
    try {
      source.sha256 = sha256_file_hex(resolved);
      lib = DynamicLibrary::open(resolved);
    } catch (const std::exception& e) {
      registry_.add_unavailable(where, fmt::format("cannot load {}: {}", resolved, e.what()));
      return;
    }
    void* entry = lib->symbol(OPCERT_BACKEND_ENTRY_SYMBOL);
    if (entry == nullptr) {
      registry_.add_unavailable(
          where, fmt::format("{} does not export the entry symbol '{}'; is it an opcert backend built with "
                             "OPCERT_SDK_EXPORT_PLUGIN?",
                             resolved, OPCERT_BACKEND_ENTRY_SYMBOL));
      return;
    }
    const opcert_api* api = reinterpret_cast<opcert_get_api_fn>(entry)();
    const std::size_t before = registry_.backends().size();
    registry_.add_plugin(std::move(lib), api, std::move(source));
    if (registry_.backends().size() > before) loaded_.insert(id);
  }

 private:
  Registry& registry_;
  const DiscoveryOptions& options_;
  std::set<FileId> loaded_;  // libraries that became a backend
};

}  // namespace

std::vector<std::string> split_search_path(const std::string& list) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= list.size()) {
    std::size_t end = list.find(':', start);
    if (end == std::string::npos) end = list.size();
    if (end > start) out.push_back(list.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

std::vector<std::string> plugin_dirs_from_environment(const std::vector<std::string>& extra_dirs) {
  std::vector<std::string> dirs;
  if (const char* env = std::getenv("OPCERT_PLUGIN_PATH")) dirs = split_search_path(env);
  dirs.insert(dirs.end(), extra_dirs.begin(), extra_dirs.end());
  return dirs;
}

std::string insecure_location_reason(const std::string& library_path) {
  struct stat st {};
  if (::stat(library_path.c_str(), &st) == 0 && (st.st_mode & S_IWOTH))
    return fmt::format("refused: {} is writable by every user", library_path);
  const std::string dir = fs::path(library_path).parent_path().string();
  if (::stat(dir.empty() ? "." : dir.c_str(), &st) == 0 && (st.st_mode & S_IWOTH))
    return fmt::format("refused: {} lies in {}, a directory every user can write to", library_path, dir);
  return {};
}

void discover_plugins(Registry& registry, const DiscoveryOptions& options) {
  PluginLoader loader(registry, options);
  for (const auto& dir : options.plugin_dirs) loader.scan_directory(dir);
  for (const auto& lib : options.plugin_libraries) loader.load_library(lib, "", "");
}

}  // namespace opcert

