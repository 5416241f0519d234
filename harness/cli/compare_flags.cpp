#include "cli/compare_flags.h"

#include <fmt/format.h>

#include <cmath>
#include <cstdlib>
#include <vector>

#include "cli/flag_checks.h"
#include "compare/compare_options.h"
#include "compare/compare_runs.h"
#include "compare/comparison_files.h"
#include "compare/comparison_text.h"
#include "model/exit_codes.h"
#include "model/input_error.h"
#include "reports/report_writer.h"
#include "reports/report_reader.h"

namespace opcert {
namespace {

// A finite number from a flag's text ("5%" when `percent_sign` allows it); InputError otherwise.
double number_of(std::string text, const char* flag, bool percent_sign) {
  if (percent_sign && !text.empty() && text.back() == '%') text.pop_back();
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size() || !std::isfinite(v) || v < 0)
    throw InputError(fmt::format("{} '{}': give a non-negative number{}", flag, text, percent_sign ? " (a percent)" : ""));
  return v;
}

const PlatformConfig* platform_of(const PlatformCatalog& platforms, const std::string& platform_flag,
                                  const RunReport& now) {
  if (!platform_flag.empty()) {
    platforms.require(platform_flag);
    return platforms.find(platform_flag);
  }
  return now.platform.empty() ? nullptr : platforms.find(now.platform);
}

// The gates' flags, listed once: added to compare, run and bench, and refused without --baseline.
struct GateOption {
  const char* name;
  std::string CompareGateFlags::*value;
  const char* type;
  const char* help;
  CLI::Validator (*check)();  // the value's check, at parse time (cli/flag_checks.h)
};
constexpr GateOption kGateOptions[] = {
    {"--fail-on", &CompareGateFlags::fail_on, "GATES",
     "Gates that fail the command: status (a passing result no longer passes), perf (a row slower by more than "
     "--max-slowdown with p < --alpha), alignment (alignment ratio or RMSE grown past --max-alignment-growth), "
     "peer_ratio (default: status,perf,alignment)",
     [] { return parsed_by([](const std::string& list) { (void)parse_gates(list); }); }},
    {"--max-slowdown", &CompareGateFlags::max_slowdown, "PCT", "The smallest slowdown that fails perf (default 5%)",
     [] { return number("a percent, 0 or more (5 or 5%)", [](double v) { return v >= 0; }, true); }},
    {"--min-peer-ratio", &CompareGateFlags::min_peer_ratio, "RATIO",
     "Fail every row of the new run slower than this times the peer (turns on peer_ratio)",
     [] { return number("a ratio, 0 or more", [](double v) { return v >= 0; }); }},
    {"--max-alignment-growth", &CompareGateFlags::max_alignment_growth, "FACTOR",
     "The growth of a result's alignment ratio or RMSE that fails alignment (default 2)",
     [] { return number("a factor of 1 or more", [](double v) { return v >= 1; }); }},
    {"--alpha", &CompareGateFlags::alpha, "P", "The rank test's significance level (default 0.05)",
     [] { return number("a level between 0 and 1", [](double v) { return v > 0 && v < 1; }); }},
};
constexpr const char* kAcrossDevices = "--across-devices";

}  // namespace

void add_compare_gate_flags(CLI::App& verb, CompareGateFlags& flags) {
  for (const GateOption& o : kGateOptions) verb.add_option(o.name, flags.*o.value, o.help)->type_name(o.type)->check(o.check());
  verb.add_flag(kAcrossDevices, flags.across_devices,
                "Match results of runs on different devices (the environment section says which)");
}

CompareOptions resolve_compare_options(const CompareGateFlags& flags, const PlatformCatalog& platforms,
                                       const std::string& platform_flag, const RunReport& now) {
  CompareOptions o;
  if (const PlatformConfig* p = platform_of(platforms, platform_flag, now)) {
    const GateThresholds& g = p->gates;
    if (!g.fail_on.empty()) o.fail_on = std::set<std::string>(g.fail_on.begin(), g.fail_on.end());
    if (g.max_slowdown) o.max_slowdown = *g.max_slowdown;
    if (g.min_peer_ratio) o.min_peer_ratio = g.min_peer_ratio;
    if (g.max_alignment_growth) o.max_alignment_growth = *g.max_alignment_growth;
  }
  if (!flags.fail_on.empty()) o.asked = o.fail_on = parse_gates(flags.fail_on);
  if (!flags.max_slowdown.empty() || !flags.alpha.empty()) o.asked.insert("perf");
  if (!flags.min_peer_ratio.empty()) o.asked.insert("peer_ratio");
  if (!flags.max_slowdown.empty()) o.max_slowdown = number_of(flags.max_slowdown, "--max-slowdown", true) / 100.0;
  if (!flags.min_peer_ratio.empty()) o.min_peer_ratio = number_of(flags.min_peer_ratio, "--min-peer-ratio", false);
  if (!flags.max_alignment_growth.empty()) {
    o.max_alignment_growth = number_of(flags.max_alignment_growth, "--max-alignment-growth", false);
    if (o.max_alignment_growth < 1)
      throw InputError(fmt::format("--max-alignment-growth {}: give a factor of 1 or more", flags.max_alignment_growth));
  }
  if (!flags.alpha.empty()) {
    o.alpha = number_of(flags.alpha, "--alpha", false);
    if (o.alpha <= 0 || o.alpha >= 1) throw InputError(fmt::format("--alpha {}: give a level between 0 and 1", flags.alpha));
  }
  o.across_devices = flags.across_devices;
  return o;
}

std::string platform_gate_note(const PlatformCatalog& platforms, const std::string& platform_flag, const RunReport& now) {
  if (!platform_flag.empty() || now.platform.empty() || platforms.find(now.platform) != nullptr) return "";
  return fmt::format("the new run's platform '{}' is not in the platform catalogue: its gates are not applied "
                     "(--platform-config FILE adds it)",
                     now.platform);
}

void write_comparison_files(const Comparison& comparison, int exit_code, const std::string& json_path,
                            const std::string& markdown_path, const std::string& junit_path) {
  const auto write = [](const std::string& path, const std::string& text, const char* flag) {
    if (path.empty()) return;
    try {
      write_file_atomically(path, text);
    } catch (const std::exception& e) {
      throw InputError(fmt::format("{} '{}': {}", flag, path, e.what()));
    }
  };
  write(json_path, comparison_json(comparison, exit_code).dump(2) + "\n", "--json");
  write(markdown_path, comparison_markdown(comparison), "--markdown");
  write(junit_path, comparison_junit(comparison), "--junit");
}

void add_baseline_flags(CLI::App& verb, BaselineFlags& flags) {
  verb.add_option("--baseline", flags.baseline,
                  "After the run, compare it with this run (a directory or report.json) as `opcert compare` does, "
                  "and exit 1 when a gate fails (the flags of `opcert compare` set the gates)")
      ->type_name("RUN")
      ->check(existing_path());
  add_compare_gate_flags(verb, flags.gates);
}

void check_baseline_flags(const CLI::App& verb, const BaselineFlags& flags) {
  if (flags.baseline.empty()) {
    std::vector<const char*> names{kAcrossDevices};
    for (const GateOption& o : kGateOptions) names.push_back(o.name);
    for (const char* name : names)
      if (verb.count(name) > 0)
        throw InputError(fmt::format("{} sets a gate of the comparison with --baseline RUN: add --baseline, or drop it",
                                     name));
    return;
  }
  read_run_report(flags.baseline);  // throws InputError naming what is wrong with it
  if (!flags.gates.fail_on.empty()) parse_gates(flags.gates.fail_on);
}

int compare_with_baseline(const std::string& baseline, const std::filesystem::path& out_dir,
                          const CompareGateFlags& flags, const PlatformCatalog& platforms,
                          const std::string& platform_flag) {
  const RunReport base = read_run_report(baseline);
  const RunReport now = read_run_report(out_dir);
  const CompareOptions options = resolve_compare_options(flags, platforms, platform_flag, now);
  Comparison comparison = compare_runs(base, now, baseline, out_dir.string(), options);
  // No platform_gate_note here: the run just made loaded its platform, so its gates are known.
  const int exit_code = comparison.failures.empty() ? kExitOk : kExitCheckFailed;
  fmt::print("\n{}", comparison_text(comparison, stdout_wants_color()));
  write_comparison_files(comparison, exit_code, (out_dir / "comparison.json").string(), "", "");
  return exit_code;
}

}  // namespace opcert
