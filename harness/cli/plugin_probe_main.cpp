// opcert-plugin-probe: the child a runner starts to take discovery's plugin steps before it takes
// them itself (session/worker/plugin_probe.h). It loads and initialises every plugin it is pointed at,
// saying on its stdout which step begins and which is done; a plugin that crashes, hangs or exits
// ends this process, not the runner. Its own program, not an opcert verb: without LibTorch and
// the built-in backends it starts in a few milliseconds where opcert takes about a second of CPU
// (docs/RELIABILITY.md, "The slowest tests, and the first command").
#include <sys/prctl.h>
#include <unistd.h>

#include <CLI/CLI.hpp>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <exception>

#include "cli/probe_reporter.h"
#include "cli/protocol_fds.h"
#include "loader/plugin_discovery.h"
#include "loader/registry.h"
#include "model/exit_codes.h"

int main(int argc, char** argv) {
  prctl(PR_SET_PDEATHSIG, SIGKILL);  // a hung plugin must not outlive its runner
  if (getppid() == 1) std::_Exit(opcert::kExitBadInput);
  CLI::App app{"Loads every plugin and says which steps finished (started by opcert's runner, not by hand)",
               "opcert-plugin-probe"};
  opcert::DiscoveryOptions discovery;
  std::vector<std::string> plugin_dirs, skip;
  app.add_option("--plugin-dir", plugin_dirs, "Directory of plugin manifests, after OPCERT_PLUGIN_PATH");
  app.add_option("--plugin", discovery.plugin_libraries, "A plugin library to load directly");
  app.add_flag("--allow-insecure-plugins", discovery.allow_insecure_plugins, "Load libraries from world-writable places");
  app.add_option("--python-bridge", discovery.python_bridge, "The runner's Python bridge library, if it has one");
  app.add_option("--skip-plugin-step", skip, "A step an earlier probe child ended in");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (app.exit(e) == 0) return opcert::kExitOk;  // --help
    return opcert::kExitBadInput;
  }
  const opcert::ProtocolFds fds = opcert::take_protocol_fds();
  if (fds.out < 0) return opcert::kExitBadInput;
  opcert::ProbeReporter reporter(fds.out, skip);
  discovery.plugin_dirs = opcert::plugin_dirs_from_environment(plugin_dirs);
  discovery.guard = &reporter;
  try {
    opcert::Registry registry;  // plugins alone: a built-in's code is opcert's own
    opcert::discover_plugins(registry, discovery);
  } catch (const std::exception& e) {  // outside any step: the runner refuses what was not done
    std::fprintf(stderr, "opcert: error: %s\n", e.what());
    std::_Exit(opcert::kExitCheckFailed);
  }
  reporter.finish();
  // What is probed is loading; a plugin's finalize or static destructors are not the runner's concern here.
  std::_Exit(opcert::kExitOk);
}
