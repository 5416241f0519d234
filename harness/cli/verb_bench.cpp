#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <limits>
#include <optional>

#include "bench/bench_runner.h"
#include "bench/collective_bench.h"
#include "bench/sampling_policy.h"
#include "check/suite.h"
#include "cli/benchmark_flags.h"
#include "cli/cli_context.h"
#include "cli/compare_flags.h"
#include "cli/device_flags.h"
#include "cli/flag_checks.h"
#include "cli/history_flags.h"
#include "cli/run_settings_builder.h"
#include "cli/session_flags.h"
#include "model/exit_codes.h"
#include "cli/verbs.h"
#include "model/input_error.h"
#include "ranks/launch_env.h"
#include "ranks/world.h"
#include "session/planning/job_list.h"
#include "session/job/run_paths.h"
#include "util/byte_size.h"

namespace opcert {
namespace {

struct BenchFlags {
  SessionFlags session;  // --timeout: compute, a benchmark's check and warm-up; collectives, one size
  bool cold_l2 = false;
  bool copy_baseline = false;
  // Compute suites only: noise-aware stopping (bench/sampling_policy.h).
  double max_noise_pct = 0.5;
  std::optional<double> max_time_s;  // --max-time; unset: the default shared over the repetitions
  // Collective suites only (the size sweep, nccl-tests' -b -e -f -n -w).
  std::string min_bytes = "1K";
  std::string max_bytes = "256M";
  double step_factor = 2.0;
  int iters = 20;
  int warmup = 5;
  std::string devices;                           // --devices, "" when not given
  DeviceMode device_mode = DeviceMode::kSpread;  // as run's: more devices, the bench done sooner
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
  const SessionFlags& f = flags.session;
  const auto [collectives, compute] = case_families(suite, f.filter);
  // Said here, before the flags are judged against what was selected: nothing was.
  if (collectives + compute == 0 && !suite.cases.empty())
    throw InputError(fmt::format("--filter '{}' matches none of the {} cases of suite '{}'", f.filter,
                                 suite.cases.size(), f.suite));
  if (collectives > 0 && compute > 0)
    throw InputError(fmt::format("suite '{}' selects {} collective and {} compute case(s): bench them separately "
                                 "(--filter, or a suite of each)",
                                 f.suite, collectives, compute));
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
                                 given.front(), f.suite));
  const LaunchEnv env = read_launch_env();
  if (!env.launcher.empty() && env.size.value_or(1) > 1) {
    // Compute cases across ranks: each rank times its share on its node's devices (bench/bench_ranks.h).
    if (flags.devices.empty())
      throw InputError(fmt::format("started by {} as rank {} of {}: a bench of compute cases across ranks needs "
                                   "--devices (all, or a list): each rank times its share on its node's devices",
                                   env.launcher, env.rank.value_or(0), env.size.value_or(1)));
    if (flags.device_mode == DeviceMode::kEach)
      throw InputError(fmt::format("--device-mode each: started by {} as rank {} of {}, a bench spreads its cases over "
                                   "the ranks (--device-mode spread); for every device's figures of every case, run "
                                   "one bench per node",
                                   env.launcher, env.rank.value_or(0), env.size.value_or(1)));
    if (!f.baseline.baseline.empty())
      throw InputError("--baseline with ranks of an MPI job: compare rank 0's output afterwards with `opcert compare`");
  }
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
  c.timeout = timeout_of(flags.session);
  return c;
}

// Adds the flags bench alone takes: the timing's (compute suites) and the sweep's (collectives).
void add_bench_only_flags(CLI::App& verb, BenchFlags& flags) {
  verb.add_flag("--cold-l2", flags.cold_l2,
                "Flush the last-level cache before each sample (platform cache_mib, the host's LLC, or 256 MiB)");
  verb.add_flag("--copy-baseline", flags.copy_baseline,
                "Also time a device-to-device copy of each memory-bound case's bytes on each backend, and give every "
                "memory-bound row its bandwidth as a percent of that copy ('% copy')");
  verb.add_option("--max-noise", flags.max_noise_pct,
                  "Sample each benchmark in batches of launches (5 ms each) until the relative standard error of "
                  "the batch means is at most this percent and the two halves agree (after --benchmark_min_time, 10 "
                  "batches and 10 samples), or until --max-time; 0: stop at the minimum time")
      ->type_name("PCT")
      ->check(number("a percent from 0 to under 100", [](double v) { return v >= 0 && v < 100; }))
      ->capture_default_str();
  verb.add_option("--max-time", flags.max_time_s,
                  "Wall-clock limit of one benchmark's sampling (each repetition) when its mean does not converge "
                  "to --max-noise; the row is marked '!'. Default: 5 s over the repetitions (1 s each at the default "
                  "5), never under the minimum time")
      ->type_name("SECONDS")
      ->check(positive_number("seconds"));
  verb.add_option("--min-bytes", flags.min_bytes, "Collectives: the smallest size of the sweep (bytes; K, M, G)")
      ->type_name("SIZE")
      ->check(byte_size())
      ->capture_default_str();
  verb.add_option("--max-bytes", flags.max_bytes, "Collectives: the largest size of the sweep (bytes; K, M, G)")
      ->type_name("SIZE")
      ->check(byte_size())
      ->capture_default_str();
  verb.add_option("--step-factor", flags.step_factor, "Collectives: each size of the sweep is the last times this")
      ->type_name("FACTOR")
      ->check(number("a factor greater than 1", [](double v) { return v > 1; }))
      ->capture_default_str();
  verb.add_option("--iters", flags.iters, "Collectives: timed collectives per size")
      ->type_name("N")
      ->check(whole_number(1, std::numeric_limits<int>::max()))
      ->capture_default_str();
  verb.add_option("--warmup", flags.warmup, "Collectives: untimed collectives before them")
      ->type_name("N")
      ->check(whole_number(0, std::numeric_limits<int>::max()))
      ->capture_default_str();
}

// The settings of a bench, compute or collective, from its flags (Google Benchmark's already in `s`).
void bench_settings(BenchSettings& s, const BenchFlags& flags, bool collectives, const PlatformCatalog& platforms,
                    const Registry& registry, std::chrono::system_clock::time_point started) {
  const SessionFlags& f = flags.session;
  apply_session_flags(s, s.resume, f, started, "bench");
  if (collectives && s.resume)
    throw InputError("--resume finishes benches of compute ops; a collective sweep is rerun whole");
  s.max_memory = f.max_memory.empty() ? 0 : parse_byte_size(f.max_memory, "--max-memory");
  s.cold_l2 = flags.cold_l2;
  s.copy_baseline = flags.copy_baseline;
  set_worker_settings(s, f.options, platforms, registry);
  s.timeout = timeout_of(f);
  s.peer = resolve_peer(f.peer, platforms, f.options.platform, registry);
  s.environment = environment_inputs(registry, s.peer);
  if (!flags.devices.empty()) {
    if (collectives)
      throw InputError("--devices: a collective sweep runs one device per rank (the local rank picks it); drop --devices");
    s.devices = parse_device_choice(flags.devices);
    s.device_mode = flags.device_mode;
  }
  if (collectives && !f.baseline.baseline.empty())
    throw InputError("--baseline compares benches of compute ops; compare collective sweeps afterwards with "
                     "`opcert compare BASE NEW` (rank 0's report)");
}

// Ranks of an MPI job, or one rank that says so (DESIGN.md section 8).
int bench_collective_suite(const BenchFlags& flags, const CollectiveBenchSettings& collective, BenchSettings& s,
                           const Suite& suite, const Registry& registry, const std::vector<BackendHandle*>& selected,
                           const PlatformCatalog& platforms) {
  const std::unique_ptr<World> world = make_world();
  if (const std::string mpi = world->library_version(); !mpi.empty()) s.environment.libraries["mpi"] = mpi;
  std::vector<RunTarget> targets;
  for (const RunTarget& t : run_targets(registry, selected, s.peer))
    if (t.backend->has_collectives()) targets.push_back(t);
  if (targets.empty()) targets = run_targets(registry, selected, "");  // the runner says why: exit 3
  return across_ranks(*world, flags.session, s.out_dir, platforms,
                      [&] { return run_collective_benchmarks(targets, suite, s, collective, *world); });
}

int bench_verb(CLI::App& verb, const BenchFlags& flags) {
  const auto started = std::chrono::system_clock::now();
  const SessionFlags& f = flags.session;
  BenchSettings s;
  s.benchmark_flags = verb.remaining();
  check_baseline_flags(verb, f.baseline);
  if (read_launch_env().rank.value_or(0) == 0) check_history_flags(f.history);
  filter_cases({}, f.filter);  // a bad expression is bad usage before anything loads
  if (!flags.devices.empty()) (void)parse_device_choice(flags.devices);  // so is a bad --devices
  const PlatformCatalog platforms = load_platform_catalog(f.options);
  if (!f.options.platform.empty()) platforms.require(f.options.platform);
  const Suite suite = load_suite(f.suite, f.seed);
  const bool collectives = selects_collectives(suite, flags, verb, s.benchmark_flags);
  const CollectiveBenchSettings collective = collectives ? collective_settings(flags) : CollectiveBenchSettings{};
  if (!collectives) {
    const bool min_time_given = take_time_flags(s.benchmark_flags, s.sampling);
    s.sampling.max_noise = flags.max_noise_pct / 100.0;
    if (flags.max_time_s) s.sampling.max_time_s = *flags.max_time_s;
    apply_repetition_defaults(s.benchmark_flags, s.sampling, min_time_given, flags.max_time_s.has_value());
    validate(s.sampling);
  }
  auto registry = load_registry(f.options);
  if (read_launch_env().rank.value_or(0) == 0) print_unavailable(*registry, f.options);  // once per job, not per rank
  const auto selected = select_backends(*registry, f.options.backend);
  bench_settings(s, flags, collectives, platforms, *registry, started);
  if (collectives) return bench_collective_suite(flags, collective, s, suite, *registry, selected, platforms);
  const DeviceRun ranks(flags.devices);  // under mpirun or srun with --devices: the ranks that share the bench
  s.world = ranks.world();
  const int exit_code = run_benchmarks(run_targets(*registry, selected, s.peer), suite, s);
  return after_session(exit_code, f, s.out_dir, platforms, ranks.writes());
}

}  // namespace

void add_bench_verb(CLI::App& app, int& exit_code) {
  auto* verb = app.add_subcommand(
      "bench",
      fmt::format("Benchmark the selected backends, with the peer ({} by default) timed in the same run (Google Benchmark). ",
                  default_peer()) +
      "Each benchmark is sampled in batches of launches until the standard error of their means is under --max-noise "
      "(or --max-time). "
      "Google Benchmark's own flags pass through: --benchmark_repetitions=N (5 by default, enough for compare's "
      "rank test), --benchmark_filter=REGEX, "
      "--benchmark_enable_random_interleaving=true, ...; opcert takes its time flags in either version's spelling: "
      "--benchmark_min_time=SECONDS (0.3 or 0.3s, each repetition; 0.5 s over the repetitions by default; or 100x for "
      "exactly 100 launches) and "
      "--benchmark_min_warmup_time=SECONDS. "
      "A suite of collectives (bench/collectives, under mpirun) is swept by size instead: time, algbw and busbw per size, "
      "with --min-bytes, --max-bytes, --step-factor, --iters, --warmup and --timeout (docs/CLI.md).");
  auto flags = std::make_shared<BenchFlags>();
  verb->allow_extras();
  add_session_flags(*verb, flags->session, "bench/smoke",
                    {.suite = "Suite name (bench/* are made for timing; docs/SUITES.md) or a suite file",
                     .filter = "Benchmark only cases whose id matches this regular expression (ECMAScript)",
                     .resume = "Finish the bench in DIR, started with the same arguments: keep the cases it measured "
                               "whole, measure the rest",
                     .impl = "Implementation keys to time: comma-separated globs, '!' excludes; 'all' for every "
                             "implementation (default: the production keys of each backend's platform config, "
                             "--platform or the one its device matches, and the peer; every implementation of a "
                             "backend without one)",
                     .peer_gives = "the speedup column"});
  add_bench_only_flags(*verb, *flags);
  add_devices_flag(*verb, flags->devices);
  add_device_mode_flag(*verb, flags->device_mode);
  add_timeout_flag(*verb, flags->session,
                   "Seconds for one benchmark's check and warm-up, beyond --max-time for each repetition's sampling "
                   "(collectives: for one size of one case, check, warm-up and timing); past it the row is TIMEOUT "
                   "(its worker is killed; a hung rank ends a collective job)");
  add_after_session_flags(*verb, flags->session);
  // Google Benchmark's flags ride along as extras: checked as the parse ends, as the other flags are.
  verb->parse_complete_callback([verb] { (void)checked_benchmark_flags(verb->remaining()); });
  verb->callback([verb, flags, &exit_code] { exit_code = bench_verb(*verb, *flags); });
}

}  // namespace opcert
