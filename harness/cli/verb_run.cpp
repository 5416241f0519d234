#include <fmt/format.h>

#include "cli/cli_context.h"
#include "cli/verbs.h"
#include "model/exit_codes.h"

namespace opcert {

// The conformance runner (suites, reference, reports) arrives with the conformance work; until
// then `run` resolves the same backends and platforms a real run would use and says so plainly.
void add_run_verb(CLI::App& app, int& exit_code) {
  auto* verb = app.add_subcommand("run", "Run conformance suites against the selected backends");
  auto options = std::make_shared<CommonOptions>();
  add_common_options(*verb, *options);
  verb->callback([options, &exit_code] {
    const PlatformCatalog platforms = load_platform_catalog(*options);
    auto registry = load_registry(*options);
    for (const auto& u : registry->unavailable()) fmt::print(stderr, "opcert: unavailable: {}: {}\n", u.source, u.reason);
    const auto selected = select_backends(*registry, options->backend);
    fmt::print("Backends found ({}):\n", selected.size());
    for (const BackendHandle* b : selected)
      fmt::print("  {:<14} {:<10} {} implementation(s)  [{}]\n", b->name(), b->version(), b->implementations().size(),
                 b->source().describe());
    fmt::print("No conformance suites are available in this build yet; nothing was run.\n");
    exit_code = kExitOk;
  });
}

}  // namespace opcert
