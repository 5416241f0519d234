#include <fmt/format.h>

#include "cli/cli_context.h"
#include "cli/list_document.h"
#include "cli/verbs.h"
#include "model/exit_codes.h"

namespace opcert {

void add_list_verb(CLI::App& app, int& exit_code) {
  auto* verb = app.add_subcommand("list", "List backends and their implementations, ops, platforms and unavailable plugins");
  auto options = std::make_shared<CommonOptions>();
  auto as_json = std::make_shared<bool>(false);
  add_common_options(*verb, *options);
  verb->add_flag("--json", *as_json, "Print the inventory as JSON");
  verb->callback([options, as_json, &exit_code] {
    const PlatformCatalog platforms = load_platform_catalog(*options);
    auto registry = load_registry(*options);
    // List everything there is even when the selection matches nothing, then say so by the exit code.
    std::vector<BackendHandle*> selected = registry->select(options->backend);
    const auto doc = list_document(selected, *registry, platforms);
    if (*as_json)
      fmt::print("{}\n", doc.dump(2));
    else
      fmt::print("{}", render_list_text(doc));
    exit_code = selected.empty() ? kExitNoBackend : kExitOk;
  });
}

}  // namespace opcert
