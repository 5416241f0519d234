// `opcert compare`: BASE against NEW, or two backends of one run (docs/CLI.md). Reads report.json
// files, judges them (compare/), prints the report and writes the files asked for; exit 1 when a
// gate failed.
#include <fmt/format.h>

#include "cli/cli_context.h"
#include "cli/compare_flags.h"
#include "cli/flag_checks.h"
#include "cli/verbs.h"
#include "compare/compare_backends.h"
#include "compare/compare_runs.h"
#include "compare/comparison_text.h"
#include "model/exit_codes.h"
#include "model/input_error.h"
#include "reports/report_reader.h"

namespace opcert {
namespace {

struct CompareFlags {
  std::vector<std::string> runs;
  std::string backends;
  std::string impls;
  std::string json_path;
  std::string markdown_path;
  std::string junit_path;
  CompareGateFlags gates;
};

// "A,B" into its two names; InputError otherwise.
std::pair<std::string, std::string> two_names(const std::string& list, const char* flag) {
  const auto comma = list.find(',');
  if (comma == std::string::npos || comma == 0 || comma + 1 == list.size() ||
      list.find(',', comma + 1) != std::string::npos)
    throw InputError(fmt::format("{} '{}': give two names, A,B", flag, list));
  return {list.substr(0, comma), list.substr(comma + 1)};
}

}  // namespace

void add_compare_verb(CLI::App& app, int& exit_code) {
  auto* verb = app.add_subcommand(
      "compare",
      "Compare two runs (BASE NEW: run directories or report.json files): status transitions, alignment drift, "
      "benchmark times with a rank test over their repetitions, environment differences; exit 1 when a gate fails. "
      "Or two backends of one run side by side (RUN --backends A,B, or --impl KEY_A,KEY_B).");
  auto flags = std::make_shared<CompareFlags>();
  auto options = std::make_shared<CommonOptions>();
  verb->add_option("runs", flags->runs, "BASE NEW, or RUN with --backends/--impl")->type_name("RUN")->expected(1, 2)->check(existing_path());
  verb->add_option("--backends", flags->backends, "Two backends of one run, side by side")->type_name("A,B");
  verb->add_option("--impl", flags->impls, "Two implementation keys of one run, side by side")->type_name("KEY_A,KEY_B");
  verb->add_option("--json", flags->json_path, "Also write the comparison as JSON (reports/schema/compare.schema.json)")
      ->type_name("FILE");
  verb->add_option("--markdown", flags->markdown_path, "Also write it as Markdown (a pull-request comment)")
      ->type_name("FILE");
  verb->add_option("--junit", flags->junit_path, "Also write JUnit XML: each gated row a test case, each failure failed")
      ->type_name("FILE");
  add_compare_gate_flags(*verb, flags->gates);
  verb->add_option("--platform", options->platform, "The platform whose gates apply (default: the new run's)")
      ->envname("OPCERT_PLATFORM")
      ->type_name("NAME");
  verb->add_option("--platform-config", options->platform_configs, "Platform config file(s) merged over the built-in ones")
      ->envname("OPCERT_PLATFORM_JSON")
      ->type_name("FILE");

  verb->callback([flags, options, &exit_code] {
    const bool side_by_side = !flags->backends.empty() || !flags->impls.empty();
    if (!flags->backends.empty() && !flags->impls.empty())
      throw InputError("--backends and --impl both given: compare backends or implementation keys, not both");
    if (side_by_side && flags->runs.size() != 1)
      throw InputError(fmt::format("--{} compares within one run: give one RUN, not {}",
                                   flags->backends.empty() ? "impl" : "backends", flags->runs.size()));
    if (!side_by_side && flags->runs.size() != 2)
      throw InputError("give BASE and NEW (two run directories or report.json files), or one RUN with --backends A,B");
    Comparison comparison;
    if (side_by_side) {
      const RunReport run = read_run_report(flags->runs[0]);
      const auto [a, b] = two_names(flags->backends.empty() ? flags->impls : flags->backends,
                                    flags->backends.empty() ? "--impl" : "--backends");
      comparison = compare_backends(run, flags->runs[0], a, b, flags->backends.empty());
    } else {
      const RunReport base = read_run_report(flags->runs[0]);
      const RunReport now = read_run_report(flags->runs[1]);
      const PlatformCatalog platforms = load_platform_catalog(*options);
      const CompareOptions compare_options = resolve_compare_options(flags->gates, platforms, options->platform, now);
      comparison = compare_runs(base, now, flags->runs[0], flags->runs[1], compare_options);
      if (const auto note = platform_gate_note(platforms, options->platform, now); !note.empty())
        comparison.notes.push_back(note);
    }
    exit_code = comparison.failures.empty() ? kExitOk : kExitCheckFailed;
    fmt::print("{}", comparison_text(comparison, stdout_wants_color()));
    write_comparison_files(comparison, exit_code, flags->json_path, flags->markdown_path, flags->junit_path);
  });
}

}  // namespace opcert
