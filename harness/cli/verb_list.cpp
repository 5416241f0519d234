#include <fmt/format.h>

#include "check/suite.h"
#include "cli/cli_context.h"
#include "cli/flag_checks.h"
#include "cli/list_cases.h"
#include "cli/list_document.h"
#include "session/planning/job_list.h"
#include "cli/verbs.h"
#include "model/exit_codes.h"
#include "model/input_error.h"

namespace opcert {

void add_list_verb(CLI::App& app, int& exit_code) {
  auto* verb = app.add_subcommand("list", "List backends and their implementations, ops, platforms and unavailable plugins");
  auto options = std::make_shared<CommonOptions>();
  auto as_json = std::make_shared<bool>(false);
  auto suite_name = std::make_shared<std::string>();
  auto filter = std::make_shared<std::string>();
  add_common_options(*verb, *options);
  verb->add_flag("--json", *as_json, "Print the inventory as JSON");
  verb->add_option("--suite", *suite_name,
                   "Also list the cases of this suite and what each selected implementation does with each: "
                   "declines (why) or the library call it makes")
      ->type_name("NAME|FILE");
  verb->add_option("--filter", *filter, "With --suite: only cases whose id matches this regular expression (ECMAScript)")
      ->type_name("REGEX")
      ->check(regular_expression());
  verb->callback([options, as_json, suite_name, filter, &exit_code] {
    if (!filter->empty() && suite_name->empty())
      throw InputError("--filter without --suite: name the suite whose cases to list (--suite NAME)");
    filter_cases({}, *filter);  // a bad expression is bad usage before anything loads
    const PlatformCatalog platforms = load_platform_catalog(*options);
    auto registry = load_registry(*options);
    // List everything there is even when the selection matches nothing, then say so by the exit code.
    std::vector<BackendHandle*> selected = registry->select(options->backend);
    auto doc = list_document(selected, *registry, platforms);
    if (!suite_name->empty()) {
      const Suite suite = load_suite(*suite_name, 0);
      doc["suite"] = suite.name;
      doc["cases"] = list_cases(suite, *filter, selected);
    }
    if (*as_json)
      fmt::print("{}\n", doc.dump(2));
    else
      fmt::print("{}{}", render_list_text(doc), doc.contains("cases") ? "\n" + render_cases_text(doc["cases"]) : "");
    exit_code = selected.empty() ? kExitNoBackend : kExitOk;
  });
}

}  // namespace opcert
