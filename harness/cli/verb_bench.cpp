#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <limits>

#include "bench/bench_runner.h"
#include "bench/collective_bench.h"
#include "bench/sampling_policy.h"
#include "check/suite.h"
#include "cli/benchmark_flags.h"
#include "cli/cli_context.h"
#include "cli/compare_flags.h"
#include "cli/flag_checks.h"
#include "cli/history_flags.h"
#include "cli/run_settings_builder.h"
#include "model/exit_codes.h"
#include "cli/verbs.h"
#include "model/input_error.h"
#include "ranks/launch_env.h"
#include "ranks/world.h"
#include "session/job_list.h"
#include "session/run_paths.h"
#include "util/byte_size.h"

namespace opcert {
namespace {

struct BenchFlags {
  std::string suite = "bench/smoke";
  std::string filter;
  std::string out;
  std::string resume;  // --resume DIR
  uint64_t seed = 1;
  std::string impl;
  bool cold_l2 = false;
  bool copy_baseline = false;
  // Compute suites only: noise-aware stopping (bench/sampling_policy.h).
  double max_noise_pct = 0.5;
  double max_time_s = 5.0;
  // Collective suites only (the size sweep, nccl-tests' -b -e -f -n -w).
  std::string min_bytes = "1K";
  std::string max_bytes = "256M";
  double step_factor = 2.0;
  int iters = 20;
  int warmup = 5;
  double timeout_s = 60.0;  // compute: a benchmark's check and warm-up; collectives: one size
  std::string max_memory;  // --max-memory SIZE, "" for none
};

// The collective flags the user gave, for the error a compute suite gives them.
std::vector<std::string> collective_flags_given(const CLI::App& verb) {
  std::vector<std::string> given;
  for (const char* name : {"--min-bytes", "--max-bytes", "--step-factor", "--iters", "--warmup"})
    if (verb.count(name) > 0) given.emplace_back(name);
  return given;
}

// True when the selected cases are collectives; InputError for a mix, for compute cases under an
// MPI launcher or with the sweep's flags, and for collectives with Google Benchmark's flags.
bool selects_collectives(const Suite& suite, const BenchFlags& flags, const CLI::App& verb,
                         const std::vector<std::string>& benchmark_flags) {
  const auto [collectives, compute] = case_families(suite, flags.filter);
  // Said here, before the flags are judged against what was selected: nothing was.
  if (collectives + compute == 0 && !suite.cases.empty())
    throw InputError(fmt::format("--filter '{}' matches none of the {} cases of suite '{}'", flags.filter,
                                 suite.cases.size(), flags.suite));
  if (collectives > 0 && compute > 0)
    throw InputError(fmt::format("suite '{}' selects {} collective and {} compute case(s): bench them separately "
                                 "(--filter, or a suite of each)",
                                 flags.suite, collectives, compute));
  if (collectives > 0) {
    for (const char* name : {"--max-noise", "--max-time"})
      if (verb.count(name) > 0)
        throw InputError(fmt::format("{} applies to compute suites; a collective sweep times --iters collectives per "
                                     "size: drop the flag",
                                     name));
    if (!benchmark_flags.empty())
      throw InputError(fmt::format("'{}': collectives are timed by opcert itself across the ranks, not by Google "
                                   "Benchmark; use --iters, --warmup and the size flags instead",
                                   benchmark_flags.front()));
    return true;
  }
  if (const auto given = collective_flags_given(verb); !given.empty())
    throw InputError(fmt::format("{} applies to collective suites only (e.g. --suite bench/collectives); suite '{}' "
                                 "has none: drop the flag",
                                 given.front(), flags.suite));
  const LaunchEnv env = read_launch_env();
  if (!env.launcher.empty() && env.size.value_or(1) > 1)
    throw InputError(fmt::format("started by {} as rank {} of {}, but suite '{}' has no collectives: bench compute "
                                 "suites without mpirun/srun",
                                 env.launcher, env.rank.value_or(0), env.size.value_or(1), flags.suite));
  return false;
}

CollectiveBenchSettings collective_settings(const BenchFlags& flags) {
  CollectiveBenchSettings c;
  c.sweep.min_bytes = parse_byte_size(flags.min_bytes, "--min-bytes");
  c.sweep.max_bytes = parse_byte_size(flags.max_bytes, "--max-bytes");
  c.sweep.step_factor = flags.step_factor;
  validate_sweep(c.sweep);
  c.iters = flags.iters;
  c.warmup = flags.warmup;
  c.timeout = std::chrono::milliseconds(static_cast<int64_t>(std::ceil(flags.timeout_s * 1000.0)));
  return c;
}

}  // namespace

void add_bench_verb(CLI::App& app, int& exit_code) {
  auto* verb = app.add_subcommand(
      "bench",
      fmt::format("Benchmark the selected backends, with the peer ({} by default) timed in the same run (Google Benchmark). ",
                  default_peer()) +
      "Each benchmark is sampled launch by launch until its noise is under --max-noise (or --max-time). "
      "Google Benchmark's own flags pass through: --benchmark_repetitions=N, --benchmark_filter=REGEX, "
      "--benchmark_enable_random_interleaving=true, ...; opcert takes its time flags in either version's spelling: "
      "--benchmark_min_time=SECONDS (0.3 or 0.3s; or 100x for exactly 100 launches) and "
      "--benchmark_min_warmup_time=SECONDS. "
      "A suite of collectives (bench/collectives, under mpirun) is swept by size instead: time, algbw and busbw per size, "
      "with --min-bytes, --max-bytes, --step-factor, --iters, --warmup and --timeout (docs/CLI.md).");
  auto options = std::make_shared<CommonOptions>();
  auto flags = std::make_shared<BenchFlags>();
  add_common_options(*verb, *options);
  verb->allow_extras();
  verb->add_option("--suite", flags->suite, "Suite name (bench/* are made for timing; docs/SUITES.md) or a suite file")
      ->type_name("NAME|FILE")
      ->capture_default_str();
  verb->add_option("--filter", flags->filter, "Benchmark only cases whose id matches this regular expression (ECMAScript)")
      ->type_name("REGEX")
      ->check(regular_expression());
  verb->add_option("--out", flags->out, "Output directory (default: out/<UTC timestamp>)")->type_name("DIR");
  verb->add_option("--resume", flags->resume,
                   "Finish the bench in DIR, started with the same arguments: keep the cases it measured whole, "
                   "measure the rest")
      ->type_name("DIR");
  verb->add_option("--seed", flags->seed, "Seed of the generated inputs")->check(whole_number())->capture_default_str();
  verb->add_option("--max-memory", flags->max_memory,
                   "The most a case may need of host (and device) memory (K, M, G); a bigger case is SKIPPED")
      ->type_name("SIZE")
      ->check(byte_size());
  verb->add_option("--impl", flags->impl,
                   "Implementation keys to time: comma-separated globs, '!' excludes (default: every implementation)")
      ->type_name("GLOBS");
  auto peer = std::make_shared<PeerOptions>();
  add_peer_options(*verb, *peer, "the speedup column");
  verb->add_flag("--cold-l2", flags->cold_l2,
                 "Flush the last-level cache before each sample (platform cache_mib, the host's LLC, or 256 MiB)");
  verb->add_flag("--copy-baseline", flags->copy_baseline,
                 "Also time a device-to-device copy of each memory-bound case's bytes on each backend, and give every "
                 "memory-bound row its bandwidth as a percent of that copy ('% copy')");
  verb->add_option("--max-noise", flags->max_noise_pct,
                   "Sample each benchmark until its samples' relative standard deviation is at most this percent "
                   "(after --benchmark_min_time and 10 samples), or until --max-time; 0: stop at the minimum time")
      ->type_name("PCT")
      ->check(number("a percent from 0 to under 100", [](double v) { return v >= 0 && v < 100; }))
      ->capture_default_str();
  verb->add_option("--max-time", flags->max_time_s,
                   "Wall-clock limit of one benchmark's sampling (each repetition) when its noise stays above "
                   "--max-noise; the row is marked '!'")
      ->type_name("SECONDS")
      ->check(positive_number("seconds"))
      ->capture_default_str();
  verb->add_option("--min-bytes", flags->min_bytes, "Collectives: the smallest size of the sweep (bytes; K, M, G)")
      ->type_name("SIZE")
      ->check(byte_size())
      ->capture_default_str();
  verb->add_option("--max-bytes", flags->max_bytes, "Collectives: the largest size of the sweep (bytes; K, M, G)")
      ->type_name("SIZE")
      ->check(byte_size())
      ->capture_default_str();
  verb->add_option("--step-factor", flags->step_factor, "Collectives: each size of the sweep is the last times this")
      ->type_name("FACTOR")
      ->check(number("a factor greater than 1", [](double v) { return v > 1; }))
      ->capture_default_str();
  verb->add_option("--iters", flags->iters, "Collectives: timed collectives per size")
      ->type_name("N")
      ->check(whole_number(1, std::numeric_limits<int>::max()))
      ->capture_default_str();
  verb->add_option("--warmup", flags->warmup, "Collectives: untimed collectives before them")
      ->type_name("N")
      ->check(whole_number(0, std::numeric_limits<int>::max()))
      ->capture_default_str();
  verb->add_option("--timeout", flags->timeout_s,
                   "Seconds for one benchmark's check and warm-up, beyond --max-time for each repetition's sampling "
                   "(collectives: for one size of one case, check, warm-up and timing); past it the row is TIMEOUT "
                   "(its worker is killed; a hung rank ends a collective job)")
      ->type_name("SECONDS")
      ->check(positive_number("seconds"))
      ->capture_default_str();

  auto baseline = std::make_shared<BaselineFlags>();
  add_baseline_flags(*verb, *baseline);
  auto history = std::make_shared<HistoryFlags>();
  add_history_flags(*verb, *history);

  // Google Benchmark's flags ride along as extras: checked as the parse ends, as the other flags are.
  verb->parse_complete_callback([verb] { (void)checked_benchmark_flags(verb->remaining()); });
  verb->callback([verb, options, flags, peer, baseline, history, &exit_code] {
    const auto started = std::chrono::system_clock::now();
    BenchSettings s;
    s.benchmark_flags = verb->remaining();
    check_baseline_flags(*verb, *baseline);
    if (read_launch_env().rank.value_or(0) == 0) check_history_flags(*history);
    filter_cases({}, flags->filter);  // a bad expression is bad usage before anything loads
    const PlatformCatalog platforms = load_platform_catalog(*options);
    if (!options->platform.empty()) platforms.require(options->platform);
    const Suite suite = load_suite(flags->suite, flags->seed);
    const bool collectives = selects_collectives(suite, *flags, *verb, s.benchmark_flags);
    const CollectiveBenchSettings collective = collectives ? collective_settings(*flags) : CollectiveBenchSettings{};
    if (!collectives) {
      take_time_flags(s.benchmark_flags, s.sampling);
      s.sampling.max_noise = flags->max_noise_pct / 100.0;
      s.sampling.max_time_s = flags->max_time_s;
      validate(s.sampling);
    }
    auto registry = load_registry(*options);
    print_unavailable(*registry, *options);
    const auto selected = select_backends(*registry, options->backend);

    s.filter = flags->filter;
    s.impl_selection = flags->impl;
    s.out_dir = chosen_out_dir(flags->out, flags->resume, started, "bench");
    s.resume = !flags->resume.empty();
    if (collectives && s.resume)
      throw InputError("--resume finishes benches of compute ops; a collective sweep is rerun whole");
    s.seed = flags->seed;
    s.max_memory = flags->max_memory.empty() ? 0 : parse_byte_size(flags->max_memory, "--max-memory");
    s.cold_l2 = flags->cold_l2;
    s.copy_baseline = flags->copy_baseline;
    set_worker_settings(s, *options, platforms, *registry);
    s.timeout = std::chrono::milliseconds(static_cast<int64_t>(std::ceil(flags->timeout_s * 1000.0)));
    s.peer = resolve_peer(*peer, platforms, options->platform, *registry);
    s.environment = environment_inputs(*registry, s.peer);
    if (collectives && !baseline->baseline.empty())
      throw InputError("--baseline compares benches of compute ops; compare collective sweeps afterwards with "
                       "`opcert compare BASE NEW` (rank 0's report)");
    if (collectives) {
      // Ranks of an MPI job, or one rank that says so (DESIGN.md section 8).
      const std::unique_ptr<World> world = make_world();
      if (const std::string mpi = world->library_version(); !mpi.empty()) s.environment.libraries["mpi"] = mpi;
      std::vector<RunTarget> targets;
      for (const RunTarget& t : run_targets(*registry, selected, s.peer))
        if (t.backend->has_collectives()) targets.push_back(t);
      if (targets.empty()) targets = run_targets(*registry, selected, "");  // the runner says why: exit 3
      try {
        exit_code = run_collective_benchmarks(targets, suite, s, collective, *world);
      } catch (...) {
        world->finalize();  // every rank throws alike (the same arguments), so they end together
        throw;
      }
      if (world->rank() == 0) keep_worse(exit_code, add_run_to_history(*history, s.out_dir, platforms));
      world->finalize();
      return;
    }
    exit_code = run_benchmarks(run_targets(*registry, selected, s.peer), suite, s);
    if (!baseline->baseline.empty()) {
      const int gates = compare_with_baseline(baseline->baseline, s.out_dir, baseline->gates, platforms, options->platform);
      if (exit_code == kExitOk) exit_code = gates;
    }
    keep_worse(exit_code, add_run_to_history(*history, s.out_dir, platforms));
  });
}

}  // namespace opcert
