#include "cli/cli_context.h"

#include <algorithm>

#include "cli/build_info.h"

#include <fmt/format.h>

#include "cli/builtin_backends.h"
#include "cli/flag_checks.h"
#include "loader/install_layout.h"
#include "loader/name_selection.h"
#include "loader/plugin_discovery.h"
#include "session/worker/plugin_probe.h"
#include "model/input_error.h"
#include "util/duration.h"

namespace opcert {

void add_common_options(CLI::App& verb, CommonOptions& o) {
  verb.add_option("--backend", o.backend, "Backends to use: comma-separated globs, '!' excludes (e.g. 'cpu,cuda', '*,!cpu')")
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
      ->type_name("FILE")
      ->check(existing_path());
  verb.add_option("--probe-timeout", o.probe_timeout,
                  "Seconds a plugin may take to load or initialise in the plugin probe before it is listed unavailable")
      ->envname("OPCERT_PROBE_TIMEOUT")
      ->check(number("a number of seconds from 0.1 to 86400", [](double s) { return s >= 0.1 && s <= 86400.0; }))
      ->type_name("SECONDS")
      ->capture_default_str();
  verb.add_option("--skip-plugin-step", o.skip_plugin_steps, "A plugin step the runner's probe refused (internal)")
      ->group("");
  verb.add_flag("--verbose", o.verbose, "Also report built-in backends that could not load though --backend leaves them out");
}

void print_unavailable(const Registry& registry, const CommonOptions& o) {
  const NameSelection selection(o.backend);
  constexpr std::string_view kBuiltin = "built-in ";
  for (const auto& u : registry.unavailable()) {
    const bool builtin = std::string_view(u.source).starts_with(kBuiltin);
    if (builtin && !o.verbose && !selection.matches(std::string_view(u.source).substr(kBuiltin.size()))) continue;
    fmt::print(stderr, "opcert: unavailable: {}: {}\n", u.source, u.reason);
    for (const auto& line : u.stderr_tail) fmt::print(stderr, "opcert:   | {}\n", line);
  }
}

DiscoveryOptions discovery_options(const CommonOptions& o, const std::string& only) {
  DiscoveryOptions discovery;
  discovery.plugin_dirs = plugin_dirs_from_environment(o.plugin_dirs);
  discovery.plugin_libraries = o.plugin_libraries;
  discovery.allow_insecure_plugins = o.allow_insecure_plugins;
  if (const auto bridge = python_bridge_library()) discovery.python_bridge = bridge->string();
  discovery.only = only;
  return discovery;
}

namespace {

// The runner's plugin probe: opcert's probe program with the same discovery flags and bridge.
ProbeLaunch probe_launch(const CommonOptions& o, const DiscoveryOptions& discovery) {
  ProbeLaunch launch;
  launch.executable = plugin_probe_program().string();
  if (!discovery.python_bridge.empty()) launch.args = {"--python-bridge", discovery.python_bridge};
  for (const auto& d : o.plugin_dirs) launch.args.insert(launch.args.end(), {"--plugin-dir", d});
  for (const auto& l : o.plugin_libraries) launch.args.insert(launch.args.end(), {"--plugin", l});
  if (o.allow_insecure_plugins) launch.args.push_back("--allow-insecure-plugins");
  launch.step_timeout = milliseconds_from_seconds(o.probe_timeout);  // rounds up, as --timeout does
  return launch;
}

}  // namespace

std::unique_ptr<Registry> load_registry(const CommonOptions& o, const std::string& only) {
  auto registry = std::make_unique<Registry>();
  register_builtin_backends(*registry);  // built in: no plugin code, nothing to probe
  DiscoveryOptions discovery = discovery_options(o, only);
  RefuseSteps refused(o.skip_plugin_steps);
  std::unique_ptr<PluginProbe> probe;
  const bool any_plugin =
      !discovery.python_bridge.empty() || !discovery.plugin_dirs.empty() || !discovery.plugin_libraries.empty();
  if (!only.empty()) {
    discovery.guard = &refused;  // a worker: its runner's probe has spoken
  } else if (any_plugin) {
    probe = std::make_unique<PluginProbe>(probe_launch(o, discovery));
    discovery.guard = probe.get();
  }
  discover_plugins(*registry, discovery);
  return registry;
}

std::vector<std::string> refused_step_flags(const Registry& registry) {
  std::vector<std::string> flags;
  for (const auto& u : registry.unavailable())
    if (!u.refused_step.empty()) flags.insert(flags.end(), {"--skip-plugin-step", u.refused_step});
  return flags;
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

// The backend opcert compares with when neither --peer nor the platform names one: the one place
// the harness names it (tests/layering checks that).
constexpr const char* kDefaultPeer = "torch";

std::string_view default_peer() { return kDefaultPeer; }

void add_peer_options(CLI::App& verb, PeerOptions& o, const std::string& compared) {
  verb.add_option("--peer", o.name,
                  fmt::format("The backend compared with for {} (default: the platform config's peer, else {})", compared,
                              kDefaultPeer))
      ->type_name("NAME");
  verb.add_flag("--no-peer", o.none, fmt::format("Run without a peer (no {})", compared));
  verb.get_option("--no-peer")->excludes(verb.get_option("--peer"));
}

std::string resolve_peer(const PeerOptions& o, const PlatformCatalog& platforms, const std::string& platform,
                         const Registry& registry) {
  if (o.none) return "";
  std::string asked = o.name, where = "--peer";
  if (asked.empty() && !platform.empty()) {
    asked = platforms.require(platform).peer;
    where = fmt::format("platform '{}'", platform);
  }
  if (asked.empty()) return registry.find(kDefaultPeer) ? kDefaultPeer : "";
  if (registry.find(asked) == nullptr) {
    std::vector<std::string> names;
    for (const auto& b : registry.backends()) names.push_back(b->name());
    throw NoBackendError(fmt::format("{} names peer '{}', which is no usable backend (usable: {}); `opcert list` shows "
                                     "why a backend is unavailable, --no-peer runs without one",
                                     where, asked, names.empty() ? std::string("none") : fmt::format("{}", fmt::join(names, ", "))));
  }
  return asked;
}

std::vector<RunTarget> run_targets(const Registry& registry, const std::vector<BackendHandle*>& selected,
                                   const std::string& peer) {
  std::vector<RunTarget> targets;
  BackendHandle* p = peer.empty() ? nullptr : registry.find(peer);
  const bool selected_too = p && std::find(selected.begin(), selected.end(), p) != selected.end();
  if (p) targets.push_back({p, !selected_too});
  for (BackendHandle* b : selected)
    if (b != p) targets.push_back({b, false});
  return targets;
}

EnvironmentInputs environment_inputs(const Registry& registry, const std::string& peer) {
  const BuildInfo& build = build_info();
  EnvironmentInputs e;
  e.opcert_version = std::string(build.version);
  e.git_commit = std::string(build.git_commit);
  e.compiler = std::string(build.compiler);
  e.build_type = std::string(build.build_type);
  if (const BackendHandle* p = peer.empty() ? nullptr : registry.find(peer)) e.libraries[peer] = p->version();
  return e;
}

}  // namespace opcert
