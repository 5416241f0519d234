#include <fmt/format.h>

#include <chrono>
#include <filesystem>

#include "bench/bench_runner.h"
#include "check/suite.h"
#include "cli/cli_context.h"
#include "cli/verbs.h"
#include "model/input_error.h"
#include "model/op_catalogue.h"
#include "run/job_list.h"
#include "run/run_paths.h"

namespace opcert {
namespace {

struct BenchFlags {
  std::string suite = "bench/smoke";
  std::string filter;
  std::string out;
  uint64_t seed = 1;
  std::string impl;
  bool no_peer = false;
  bool cold_l2 = false;
  bool copy_baseline = false;
};

// Google Benchmark's flags ride along as extras; anything else left over is a typo.
std::vector<std::string> benchmark_flags_of(const std::vector<std::string>& extras) {
  for (const auto& e : extras)
    if (e.rfind("--benchmark_", 0) != 0)
      throw InputError(fmt::format("unknown argument '{}' for `opcert bench`; only --benchmark_* flags pass through "
                                   "to Google Benchmark (see `opcert bench --help`)",
                                   e));
  return extras;
}

}  // namespace

void add_bench_verb(CLI::App& app, int& exit_code) {
  auto* verb = app.add_subcommand(
      "bench",
      "Benchmark the selected backends, with the torch peer timed in the same run (Google Benchmark). "
      "Google Benchmark's own flags pass through: --benchmark_min_time=SECONDS, --benchmark_repetitions=N, "
      "--benchmark_filter=REGEX, --benchmark_enable_random_interleaving=true, --benchmark_min_warmup_time=SECONDS, ...");
  auto options = std::make_shared<CommonOptions>();
  auto flags = std::make_shared<BenchFlags>();
  add_common_options(*verb, *options);
  verb->allow_extras();
  verb->add_option("--suite", flags->suite, "Suite name (bench/* are made for timing; docs/SUITES.md) or a suite file")
      ->type_name("NAME|FILE")
      ->capture_default_str();
  verb->add_option("--filter", flags->filter, "Benchmark only cases whose id matches this regular expression (ECMAScript)")
      ->type_name("REGEX");
  verb->add_option("--out", flags->out, "Output directory (default: out/<UTC timestamp>)")->type_name("DIR");
  verb->add_option("--seed", flags->seed, "Seed of the generated inputs")->capture_default_str();
  verb->add_option("--impl", flags->impl,
                   "Implementation keys to time: comma-separated globs, '!' excludes (default: every implementation)")
      ->type_name("GLOBS");
  verb->add_flag("--no-peer", flags->no_peer, "Do not time the torch backend alongside (no 'vs torch' column)");
  verb->add_flag("--cold-l2", flags->cold_l2,
                 "Flush the last-level cache before each sample (platform cache_mib, the host's LLC, or 256 MiB)");
  verb->add_flag("--copy-baseline", flags->copy_baseline,
                 "Also time a device-to-device copy of each memory-bound case's bytes on each backend, and give every "
                 "memory-bound row its bandwidth as a percent of that copy ('% copy')");

  verb->callback([verb, options, flags, &exit_code] {
    const auto started = std::chrono::system_clock::now();
    BenchSettings s;
    s.benchmark_flags = benchmark_flags_of(verb->remaining());
    for (const auto& flag : s.benchmark_flags)
      if (is_reserved_benchmark_flag(flag))
        throw InputError(fmt::format("'{}' is set by opcert bench (the table is its display; bench.json in --out is "
                                     "Google Benchmark's JSON); drop the flag",
                                     flag));
    filter_cases({}, flags->filter);  // a bad expression is bad usage before anything loads
    const PlatformCatalog platforms = load_platform_catalog(*options);
    if (!options->platform.empty()) platforms.require(options->platform);
    const Suite suite = load_suite(flags->suite, flags->seed);
    for (std::size_t i : filter_cases(suite.cases, flags->filter)) {
      const OpEntry* op = find_op(suite.cases[i].op);
      if (op != nullptr && op->family == OpFamily::kCollective)
        throw InputError(fmt::format("suite '{}': case '{}' is a collective; opcert bench does not time collectives yet "
                                     "(check them with mpirun -np N opcert run --suite ...)",
                                     flags->suite, suite.cases[i].id));
    }
    auto registry = load_registry(*options);
    for (const auto& u : registry->unavailable()) fmt::print(stderr, "opcert: unavailable: {}: {}\n", u.source, u.reason);
    const auto selected = select_backends(*registry, options->backend);

    s.filter = flags->filter;
    s.impl_selection = flags->impl;
    s.out_dir = flags->out.empty() ? default_out_dir(started) : std::filesystem::path(flags->out);
    s.seed = flags->seed;
    s.cold_l2 = flags->cold_l2;
    s.copy_baseline = flags->copy_baseline;
    s.platform = options->platform;
    s.platforms = &platforms;
    s.command_line = current_command_line();
    s.suite_asked = flags->suite;
    s.environment = environment_inputs(*registry);
    exit_code = run_benchmarks(run_targets(*registry, selected, flags->no_peer), suite, s);
  });
}

}  // namespace opcert
