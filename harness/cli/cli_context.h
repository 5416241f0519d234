// Options shared by every verb (backend selection, plugins, platforms) and the objects built
// from them: the registry of backends and the platform catalogue.
#pragma once

#include <CLI/CLI.hpp>

#include <memory>
#include <string>
#include <vector>

#include "loader/platform/platform_config.h"
#include "loader/registry.h"
#include "reports/environment.h"
#include "run/conformance_runner.h"

namespace opcert {

struct CommonOptions {
  std::string backend = "*";                  // --backend / OPCERT_BACKENDS
  std::vector<std::string> plugin_dirs;       // --plugin-dir (after OPCERT_PLUGIN_PATH)
  std::vector<std::string> plugin_libraries;  // --plugin
  bool allow_insecure_plugins = false;        // --allow-insecure-plugins
  std::string platform;                       // --platform / OPCERT_PLATFORM
  std::vector<std::string> platform_configs;  // --platform-config (after OPCERT_PLATFORM_JSON)
};

/// Adds the common flags to a verb.
void add_common_options(CLI::App& verb, CommonOptions& options);

/// Registers the built-in backends and discovers plugins; failures land in unavailable().
std::unique_ptr<Registry> load_registry(const CommonOptions& options);

/// Built-in platforms merged with OPCERT_PLATFORM_JSON and --platform-config; InputError on bad files.
PlatformCatalog load_platform_catalog(const CommonOptions& options);

/// The targets of a run or bench: the torch backend first (as the peer when it was not selected,
/// unless `no_peer`), then the selected backends in order.
std::vector<RunTarget> run_targets(const Registry& registry, const std::vector<BackendHandle*>& selected, bool no_peer);

/// This build's facts and the versions of the libraries the registry loaded, for the report.
EnvironmentInputs environment_inputs(const Registry& registry);

/// The selected backends; an include pattern that matches no usable backend, or an empty
/// selection, is a NoBackendError (exit 3) naming what is usable.
std::vector<BackendHandle*> select_backends(const Registry& registry, const std::string& selection);

}  // namespace opcert
