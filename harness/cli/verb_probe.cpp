// `opcert probe-plugins`: the hidden verb a runner starts to take discovery's plugin steps before
// it takes them itself (session/plugin_probe.h). It loads and initialises every plugin it finds,
// saying on its stdout which step begins and which is done; a plugin that crashes, hangs or exits
// ends this process, not the runner.
#include <sys/prctl.h>
#include <unistd.h>

#include <csignal>
#include <cstdlib>

#include "cli/cli_context.h"
#include "cli/protocol_fds.h"
#include "cli/verbs.h"
#include "model/exit_codes.h"
#include "session/plugin_probe.h"

namespace opcert {

void add_probe_verb(CLI::App& app, int& exit_code) {
  auto* verb = app.add_subcommand("probe-plugins", "Load every plugin and say which steps finished (internal)");
  verb->group("");  // hidden from --help: only a runner starts it
  auto options = std::make_shared<CommonOptions>();
  add_common_options(*verb, *options);
  verb->callback([options, &exit_code] {
    prctl(PR_SET_PDEATHSIG, SIGKILL);  // a hung plugin must not outlive its runner
    if (getppid() == 1) std::_Exit(kExitBadInput);
    const ProtocolFds fds = take_protocol_fds();
    if (fds.out < 0) {
      exit_code = kExitBadInput;
      return;
    }
    ProbeReporter reporter(fds.out, options->skip_plugin_steps);
    DiscoveryOptions discovery = discovery_options(*options, "");
    discovery.guard = &reporter;
    Registry registry;  // plugins alone: a built-in's code is opcert's own
    discover_plugins(registry, discovery);
    reporter.finish();
    // What is probed is loading; a plugin's finalize or static destructors are not the runner's concern here.
    std::_Exit(kExitOk);
  });
}

}  // namespace opcert
