// `opcert compare`: BASE against NEW, or two backends of one run (docs/CLI.md). Reads report.json
// files, judges them (compare/), prints the report and writes the files asked for; exit 1 when a
// gate failed.
#include <fmt/format.h>

#include <optional>

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
  std::string devices;
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

// Which side-by-side flag was given, with its value; nullopt for none. InputError for more than one.
struct SideBySide {
  const char* flag;
  std::string value;
  SideBy by;
};
std::optional<SideBySide> side_by_side_of(const CompareFlags& f) {
  std::optional<SideBySide> chosen;
  for (const SideBySide& s : {SideBySide{"--backends", f.backends, SideBy::kBackend}, SideBySide{"--impl", f.impls, SideBy::kImpl},
                              SideBySide{"--devices", f.devices, SideBy::kDevice}}) {
    if (s.value.empty()) continue;
    if (chosen)
      throw InputError(fmt::format("{} and {} both given: compare backends, implementation keys or devices, one of them",
                                   chosen->flag, s.flag));
    chosen = s;
  }
  return chosen;
}

}  // namespace

void add_compare_verb(CLI::App& app, int& exit_code) {
  auto* verb = app.add_subcommand(
      "compare",
      "Compare two runs (BASE NEW: run directories or report.json files): status transitions, alignment drift, "
      "benchmark times with a rank test over their repetitions, environment differences; exit 1 when a gate fails. "
      "Or two backends of one run side by side (RUN --backends A,B, --impl KEY_A,KEY_B, or --devices 0,1).");
  auto flags = std::make_shared<CompareFlags>();
  auto options = std::make_shared<CommonOptions>();
  verb->add_option("runs", flags->runs, "BASE NEW, or RUN with --backends/--impl/--devices")->type_name("RUN")->expected(1, 2)->check(existing_path());
  verb->add_option("--backends", flags->backends, "Two backends of one run, side by side")->type_name("A,B");
  verb->add_option("--impl", flags->impls, "Two implementation keys of one run, side by side")->type_name("KEY_A,KEY_B");
  verb->add_option("--devices", flags->devices, "Two devices of one run with --devices, side by side (their indices)")
      ->type_name("A,B")
      ->check(parsed_by(
          [](const std::string& v) {
            const std::size_t comma = v.find(',');
            const auto index = [](const std::string& s) { return !s.empty() && s.find_first_not_of("0123456789") == std::string::npos; };
            if (comma == std::string::npos || !index(v.substr(0, comma)) || !index(v.substr(comma + 1)))
              throw InputError(fmt::format("'{}' is not two device indices: write them as 0,1", v));
          }));
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
    const auto side_by_side = side_by_side_of(*flags);
    if (side_by_side && flags->runs.size() != 1)
      throw InputError(fmt::format("{} compares within one run: give one RUN, not {}", side_by_side->flag, flags->runs.size()));
    if (!side_by_side && flags->runs.size() != 2)
      throw InputError("give BASE and NEW (two run directories or report.json files), or one RUN with --backends A,B");
    Comparison comparison;
    if (side_by_side) {
      const RunReport run = read_run_report(flags->runs[0]);
      const auto [a, b] = two_names(side_by_side->value, side_by_side->flag);
      comparison = compare_backends(run, flags->runs[0], a, b, side_by_side->by);
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
