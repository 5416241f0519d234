// `opcert selftest` (docs/CLI.md, "selftest"): the detection power of the shipped suites, proved
// on the mutant backend (backends/mutants). Each suite runs every mutant and its correct twin
// through the ordinary run (workers, the C ABI, the result stream), and the mutant detection reads
// the results back: which slips some case caught, and where a twin raised a false alarm.
#include <memory>

#include "cli/cli_context.h"
#include "cli/flag_checks.h"
#include "cli/run_settings_builder.h"
#include "cli/verbs.h"
#include "run/collective_runner.h"
#include "run/conformance_runner.h"
#include "selftest/selftest_command.h"

namespace opcert {
namespace {

// The mutant backend loaded as any plugin of this process is, and its suites run as `opcert run`
// runs them.
MutantBackend load_mutants(const std::filesystem::path& library) {
  auto options = std::make_shared<CommonOptions>();
  options->backend = "mutants";
  options->plugin_libraries = {library.string()};
  auto platforms = std::make_shared<const PlatformCatalog>(load_platform_catalog(*options));
  std::shared_ptr<Registry> registry = load_registry(*options);
  const auto selected = select_backends(*registry, options->backend);
  return {selected.front(), [options, platforms, registry, selected](const SuiteRun& r, World* world) {
            RunSettings s = conformance_settings(*options, *platforms, *registry);
            s.impl_selection = r.impl_selection;
            s.out_dir = r.out_dir;
            s.seed = r.seed;
            s.timeout = r.timeout;
            s.progress = r.progress;
            s.repro_suite = suite_for_repro(r.name, r.suite);
            s.environment = environment_inputs(*registry, "");
            return world ? run_collectives(run_targets(*registry, selected, ""), r.suite, s, *world)
                         : run_conformance(run_targets(*registry, selected, ""), r.suite, s);
          }};
}

}  // namespace

void add_selftest_verb(CLI::App& app, int& exit_code) {
  auto* verb = app.add_subcommand("selftest", "Prove the suites' detection power on the shipped mutant backend");
  auto flags = std::make_shared<SelftestRequest>();
  verb->add_option("--suite", flags->suites,
                   "Suite to judge with (repeatable; default: smoke, or collectives under an MPI launcher)")
      ->type_name("NAME|FILE");
  verb->add_option("--mutant", flags->mutants,
                   "Mutants to run: comma-separated globs over their keys, '!' excludes (default: all); every twin runs")
      ->type_name("GLOBS");
  verb->add_option("--out", flags->out, "Output directory (default: out/selftest-<UTC timestamp>)")->type_name("DIR");
  verb->add_option("--seed", flags->seed, "Seed of the generated inputs")->check(whole_number())->capture_default_str();
  verb->add_option("--timeout", flags->timeout_s, "Per-case timeout in seconds")
      ->type_name("SECONDS")
      ->check(positive_number("seconds"))
      ->capture_default_str();
  verb->add_option("--progress", flags->progress, "A line per case (plain), or notes only (quiet)")
      ->check(one_of({"quiet", "plain"}))
      ->capture_default_str();
  verb->add_flag("--json", flags->json, "Print selftest.json instead of the table");

  verb->callback([flags, &exit_code] { exit_code = selftest_command(*flags, load_mutants); });
}

}  // namespace opcert
