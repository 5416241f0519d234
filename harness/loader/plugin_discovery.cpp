#include "loader/plugin_discovery.h"

#include <fmt/format.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <optional>
#include <set>

#include "loader/file_digest.h"
#include "loader/manifest.h"
#include "loader/name_selection.h"

namespace opcert {
namespace fs = std::filesystem;

namespace {

// Identity of a file independent of the path used to reach it (symlinks, "..", hard links).
struct FileId {
  dev_t device;
  ino_t inode;
  auto operator<=>(const FileId&) const = default;
};

// A library file opened and its table read, kept so that a second use (a manifest naming a Python
// backend, after the bridge's own listing) shares it.
struct OpenedLibrary {
  FileId id{};
  std::shared_ptr<DynamicLibrary> library;
  const opcert_api* api = nullptr;
  BackendSource source;  // kind, library path and digest filled
};

class PluginLoader {
 public:
  PluginLoader(Registry& registry, const DiscoveryOptions& options)
      : registry_(registry), options_(options), only_(options.only.empty() ? "*" : options.only) {}

  void load_python_bridge() {
    if (options_.python_bridge.empty()) return;
    // A worker of a built-in backend needs no Python: no listed backend can take a built-in's name.
    if (!options_.only.empty() && registry_.find(options_.only) != nullptr) return;
    const std::string where = "built-in python";
    auto opened = open(options_.python_bridge, where, /*reached_again_is_silent=*/false);
    if (!opened) return;
    opened->source.listed_by_opcert_bridge = true;
    add_listed(*opened, where);
  }

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
    if (!manifest.python_entry.empty()) return load_python_manifest(manifest);
    load_library(manifest.library_path, path, manifest.backend_name,
                 std::to_string(manifest.abi_major) + "." + std::to_string(manifest.abi_minor));
  }

  void load_library(const std::string& library, const std::string& manifest_path, const std::string& declared_name,
                    const std::string& declared_abi = "") {
    const std::string where = manifest_path.empty() ? library : manifest_path;
    auto opened = open(library, where, /*reached_again_is_silent=*/true);
    if (!opened) return;
    opened->source.manifest_path = manifest_path;
    // A library of several backends names each itself; a manifest's one name cannot check them.
    if (BackendHandle::lists_backends(opened->api)) return add_listed(*opened, where);
    opened->source.declared_name = declared_name;
    opened->source.declared_abi = declared_abi;
    add(*opened, opened->source);
  }

 private:
  // A manifest naming a Python module: the bridge serves it under the manifest's name.
  void load_python_manifest(const PluginManifest& manifest) {
    if (!only_.matches(manifest.backend_name)) return;  // a worker imports its own backend alone
    if (options_.python_bridge.empty()) {
      registry_.add_unavailable(manifest.manifest_path,
                                "names a Python backend, but this opcert was built without the Python bridge "
                                "(docs/PYTHON.md: OPCERT_WITH_PYTHON)");
      return;
    }
    auto opened = open(options_.python_bridge, manifest.manifest_path, /*reached_again_is_silent=*/false);
    if (!opened) return;
    BackendSource source = opened->source;
    source.manifest_path = manifest.manifest_path;
    source.declared_name = manifest.backend_name;
    source.backend_name = manifest.backend_name;
    source.entry = manifest.python_entry;
    add(*opened, std::move(source));
  }

  // Every backend a library of several lists, each initialised by name; a listed failure is
  // recorded under its origin. A worker passes `only` and initialises its own alone.
  void add_listed(OpenedLibrary& opened, const std::string& where) {
    std::vector<ListedBackend> listed;
    bool failed = false;
    const std::string step = "list " + opened.source.library_path;
    if (options_.guard != nullptr && options_.guard->lists_nothing(step)) return;
    const bool taken = guarded(step, where, [&] {
      try {
        listed = BackendHandle::list_backends(opened.api);
        if (options_.guard != nullptr) options_.guard->listed(step, listed.size());
      } catch (const std::exception& e) {
        registry_.add_unavailable(where, e.what());
        failed = true;
      }
    });
    if (!taken || failed) return;
    for (const ListedBackend& b : listed) {
      if (!b.error.empty()) {
        registry_.add_unavailable(b.origin.empty() ? b.name : b.origin, b.error);
        continue;
      }
      if (b.name.empty() || !only_.matches(b.name)) continue;
      BackendSource source = opened.source;
      source.backend_name = b.name;
      source.entry = b.entry;
      source.origin = b.origin;
      add(opened, std::move(source));
    }
  }

  void add(OpenedLibrary& opened, BackendSource source) {
    const std::size_t before = registry_.backends().size();
    const std::string step =
        "init " + source.library_path + (source.backend_name.empty() ? "" : " " + source.backend_name);
    const std::string where = source.describe();
    guarded(step, where, [&] { registry_.add_plugin(opened.library, opened.api, std::move(source)); });
    if (registry_.backends().size() > before) loaded_.insert(opened.id);
  }

  // Runs `fn`, the step that runs a plugin's code, unless the guard refuses it; a refusal is
  // listed under `where`. Whether it ran.
  template <class Fn>
  bool guarded(const std::string& step, const std::string& where, Fn&& fn) {
    PluginGuard* guard = options_.guard;
    if (guard != nullptr)
      if (auto refusal = guard->before(step)) {
        registry_.add_refused(where, step, std::move(*refusal));
        return false;
      }
    fn();
    if (guard != nullptr) guard->after(step);
    return true;
  }

  // Opens a library once per file (by device and inode). A file that already became a backend
  // and is reached again through another path is skipped silently when `reached_again_is_silent`.
  std::optional<OpenedLibrary> open(const std::string& library, const std::string& where, bool reached_again_is_silent) {
    struct stat st {};
    if (::stat(library.c_str(), &st) != 0) {
      registry_.add_unavailable(where, fmt::format("library not found: {} ({})", library, std::strerror(errno)));
      return std::nullopt;
    }
    // Already loaded through another path: loading is idempotent. A library that failed through
    // one path is tried again (and its failure listed again) through the next.
    const FileId id{st.st_dev, st.st_ino};
    if (reached_again_is_silent && loaded_.count(id) != 0) return std::nullopt;
    if (auto it = opened_.find(id); it != opened_.end()) return it->second;

    std::error_code ec;
    const std::string canonical = fs::canonical(library, ec).string();
    const std::string resolved = ec ? library : canonical;
    if (!options_.allow_insecure_plugins) {
      if (std::string why = insecure_location_reason(resolved); !why.empty()) {
        registry_.add_unavailable(where, why + "; move it, or pass --allow-insecure-plugins if you trust it");
        return std::nullopt;
      }
    }

    OpenedLibrary opened;
    opened.id = id;
    opened.source.kind = BackendSource::Kind::kPlugin;
    opened.source.library_path = resolved;
    std::string failure;
    if (!guarded("load " + resolved, where, [&] { failure = load(opened); })) return std::nullopt;
    if (!failure.empty()) {
      registry_.add_unavailable(where, failure);
      return std::nullopt;
    }
    opened_.emplace(id, opened);
    return opened;
  }

  // dlopen (the library's static constructors run), its entry point and the table's ABI: why
  // it cannot be used, or "".
  static std::string load(OpenedLibrary& opened) {
    const std::string& resolved = opened.source.library_path;
    try {
      opened.source.sha256 = sha256_file_hex(resolved);
      opened.library = DynamicLibrary::open(resolved);
    } catch (const std::exception& e) {
      return fmt::format("cannot load {}: {}", resolved, e.what());
    }
    void* entry = opened.library->symbol(OPCERT_BACKEND_ENTRY_SYMBOL);
    if (entry == nullptr)
      return fmt::format("{} does not export the entry symbol '{}'; is it an opcert backend built with "
                         "OPCERT_SDK_EXPORT_PLUGIN?",
                         resolved, OPCERT_BACKEND_ENTRY_SYMBOL);
    opened.api = reinterpret_cast<opcert_get_api_fn>(entry)();
    if (auto why = abi_incompatibility(opened.api)) return *why;
    return {};
  }

  Registry& registry_;
  const DiscoveryOptions& options_;
  NameSelection only_;
  std::set<FileId> loaded_;             // libraries that became a backend
  std::map<FileId, OpenedLibrary> opened_;     // libraries opened, for a second backend of the same file
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
  loader.load_python_bridge();
  for (const auto& dir : options.plugin_dirs) loader.scan_directory(dir);
  for (const auto& lib : options.plugin_libraries) loader.load_library(lib, "", "");
}

}  // namespace opcert

