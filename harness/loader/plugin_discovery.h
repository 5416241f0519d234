// Finds plugins and loads them into the registry: the Python bridge's backends (entry points),
// manifests (*.json) in the directories of OPCERT_PLUGIN_PATH and --plugin-dir, and libraries
// named by --plugin. Every plugin that is skipped or fails lands in Registry::unavailable() with
// its reason; the others go on.
#pragma once

#include <string>
#include <vector>

#include "loader/plugin_guard.h"
#include "loader/registry.h"

namespace opcert {

struct DiscoveryOptions {
  std::vector<std::string> plugin_dirs;       // searched in order, manifests sorted by name
  std::vector<std::string> plugin_libraries;  // loaded directly, without a manifest
  bool allow_insecure_plugins = false;        // permit libraries in world-writable directories
  /// opcert's own bridge to Python backends (backends/python), loaded first, as a built-in is;
  /// empty when this opcert was built without it.
  std::string python_bridge;
  /// When set, a library of several backends initialises only the ones this selection names
  /// (a worker imports its own Python backend, not every one installed), and the Python bridge is
  /// not loaded at all when a built-in already has that name.
  std::string only;
  /// Asked before each step that runs a plugin's code (plugin_guard.h); null: every step is taken.
  PluginGuard* guard = nullptr;
};

/// The directories of a PATH-style list ("a:b:c"), empty entries dropped.
std::vector<std::string> split_search_path(const std::string& list);

/// OPCERT_PLUGIN_PATH's directories followed by `extra_dirs`.
std::vector<std::string> plugin_dirs_from_environment(const std::vector<std::string>& extra_dirs);

/// Loads every plugin found. A library reached twice (by any path) is loaded once.
void discover_plugins(Registry& registry, const DiscoveryOptions& options);

/// Why a library must not be loaded (its directory, or the file, is writable by anyone), or
/// an empty string when it may.
std::string insecure_location_reason(const std::string& library_path);

}  // namespace opcert
