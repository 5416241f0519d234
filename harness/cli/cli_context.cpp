#include "cli/cli_context.h"

#include <algorithm>

#include "cli/build_info.h"

#include <fmt/format.h>

#include "cli/builtin_backends.h"
#include "loader/name_selection.h"
#include "loader/plugin_discovery.h"
#include "model/input_error.h"

namespace opcert {

void add_common_options(CLI::App& verb, CommonOptions& o) {
  verb.add_option("--backend", o.backend, "Backends to use: comma-separated globs, '!' excludes (e.g. 'cpu,torch', '*,!torch')")
      ->envname("OPCERT_BACKENDS")
      ->capture_default_str();
  verb.add_option("--plugin-dir", o.plugin_dirs, "Directory of plugin manifests (*.json), after OPCERT_PLUGIN_PATH")
      ->type_name("DIR");
  verb.add_option("--plugin", o.plugin_libraries, "A plugin library to load directly, without a manifest")
      ->type_name("LIB");
  verb.add_flag("--allow-insecure-plugins", o.allow_insecure_plugins,
                "Load plugin libraries even from world-writable locations");
  verb.add_option("--platform", o.platform, "Platform config to apply (see `opcert list`)")
      ->envname("OPCERT_PLATFORM")
      ->type_name("NAME");
  verb.add_option("--platform-config", o.platform_configs, "Extra platform config file, merged over the built-ins by name")
      ->type_name("FILE");
}

std::unique_ptr<Registry> load_registry(const CommonOptions& o) {
  auto registry = std::make_unique<Registry>();
  register_builtin_backends(*registry);
  DiscoveryOptions discovery;
  discovery.plugin_dirs = plugin_dirs_from_environment(o.plugin_dirs);
  discovery.plugin_libraries = o.plugin_libraries;
  discovery.allow_insecure_plugins = o.allow_insecure_plugins;
  discover_plugins(*registry, discovery);
  return registry;
}

PlatformCatalog load_platform_catalog(const CommonOptions& o) {
  PlatformCatalog catalog = load_platforms(o.platform_configs);
  if (!o.platform.empty()) catalog.require(o.platform);
  return catalog;
}

std::vector<BackendHandle*> select_backends(const Registry& registry, const std::string& selection) {
  std::vector<std::string> names;
  for (const auto& b : registry.backends()) names.push_back(b->name());
  const auto missing = NameSelection(selection).unmatched(names);
  if (!missing.empty())
    throw NoBackendError(fmt::format("--backend '{}': no usable backend matches '{}' (usable: {}); `opcert list` shows "
                                     "every backend and why any is unavailable",
                                     selection, fmt::join(missing, "', '"),
                                     names.empty() ? std::string("none") : fmt::format("{}", fmt::join(names, ", "))));
  auto selected = registry.select(selection);
  if (selected.empty())
    throw NoBackendError(fmt::format("--backend '{}' selects no usable backend; `opcert list` shows what is there",
                                     selection));
  return selected;
}

std::vector<RunTarget> run_targets(const Registry& registry, const std::vector<BackendHandle*>& selected, bool no_peer) {
  std::vector<RunTarget> targets;
  BackendHandle* torch = registry.find("torch");
  const bool torch_selected = torch && std::find(selected.begin(), selected.end(), torch) != selected.end();
  if (torch && (torch_selected || !no_peer)) targets.push_back({torch, !torch_selected});
  for (BackendHandle* b : selected)
    if (b != torch) targets.push_back({b, false});
  return targets;
}

EnvironmentInputs environment_inputs(const Registry& registry) {
  const BuildInfo& build = build_info();
  EnvironmentInputs e;
  e.opcert_version = std::string(build.version);
  e.git_commit = std::string(build.git_commit);
  e.compiler = std::string(build.compiler);
  e.build_type = std::string(build.build_type);
  if (const BackendHandle* torch = registry.find("torch")) e.libraries["torch"] = torch->version();
  return e;
}

}  // namespace opcert
