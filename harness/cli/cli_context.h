// Options shared by every verb (backend selection, plugins, platforms) and the objects built
// from them: the registry of backends and the platform catalogue.
#pragma once

#include <CLI/CLI.hpp>

#include <memory>
#include <string>
#include <vector>

#include "loader/platform/platform_config.h"
#include "loader/plugin_discovery.h"
#include "loader/registry.h"
#include "reports/environment.h"
#include "session/planning/targets.h"

namespace opcert {

struct CommonOptions {
  std::string backend = "*";                  // --backend / OPCERT_BACKENDS
  std::vector<std::string> plugin_dirs;       // --plugin-dir (after OPCERT_PLUGIN_PATH)
  std::vector<std::string> plugin_libraries;  // --plugin
  bool allow_insecure_plugins = false;        // --allow-insecure-plugins
  std::string platform;                       // --platform / OPCERT_PLATFORM
  std::vector<std::string> platform_configs;  // --platform-config (after OPCERT_PLATFORM_JSON)
  bool verbose = false;                       // --verbose: also what the selection leaves out
  double probe_timeout = 60;                  // --probe-timeout / OPCERT_PROBE_TIMEOUT, seconds per plugin step
  std::vector<std::string> skip_plugin_steps;  // hidden --skip-plugin-step: what the runner's probe refused
};

/// Adds the common flags to a verb.
void add_common_options(CLI::App& verb, CommonOptions& options);

/// One stderr line per backend that could not be loaded, except a built-in one that --backend
/// leaves out anyway (unless --verbose): a run of a plugin alone is not told about a missing GPU.
void print_unavailable(const Registry& registry, const CommonOptions& options);

/// The peer of `opcert run` and `opcert bench`: the backend every result is compared with
/// (alignment, speed ratios), a role rather than a name (docs/CLI.md, "The peer").
struct PeerOptions {
  std::string name;      // --peer; "" = the platform config's, else the default
  bool none = false;     // --no-peer
};

/// The peer when neither --peer nor the platform config names one.
std::string_view default_peer();

/// Adds --peer and --no-peer to a verb; `compared` says what the peer gives ("the alignment
/// figure", "the speedup column").
void add_peer_options(CLI::App& verb, PeerOptions& options, const std::string& compared);

/// The peer's name: --peer when given, else the applied platform's `peer`, else the default
/// (torch); "" with --no-peer, or when the default is not loaded. A peer asked for by name (flag or
/// platform) that no usable backend has is a NoBackendError (exit 3).
std::string resolve_peer(const PeerOptions& options, const PlatformCatalog& platforms, const std::string& platform,
                         const Registry& registry);

/// Registers the built-in backends and discovers plugins; failures land in unavailable(). `only`
/// (a worker's backend) limits which Python backends are imported. Without `only`, plugins are
/// probed in a child first (session/worker/plugin_probe.h) and only what the probe finished is loaded;
/// a worker refuses the steps its runner's probe refused (`--skip-plugin-step`).
std::unique_ptr<Registry> load_registry(const CommonOptions& options, const std::string& only = "");

/// Where discovery looks, from the common flags, the environment and this build.
DiscoveryOptions discovery_options(const CommonOptions& options, const std::string& only);

/// `--skip-plugin-step STEP` for each plugin step the registry's probe refused: what a worker
/// of this runner must not take either.
std::vector<std::string> refused_step_flags(const Registry& registry);

/// Built-in platforms merged with OPCERT_PLATFORM_JSON and --platform-config; InputError on bad files.
PlatformCatalog load_platform_catalog(const CommonOptions& options);

/// The targets of a run or bench: the peer first (a target of its own when it was not selected),
/// then the selected backends in order. `peer` "" for none.
std::vector<RunTarget> run_targets(const Registry& registry, const std::vector<BackendHandle*>& selected,
                                   const std::string& peer);

/// This build's facts, and the peer's version (under its name), for the report.
EnvironmentInputs environment_inputs(const Registry& registry, const std::string& peer);

/// The selected backends; an include pattern that matches no usable backend, or an empty
/// selection, is a NoBackendError (exit 3) naming what is usable.
std::vector<BackendHandle*> select_backends(const Registry& registry, const std::string& selection);

}  // namespace opcert
