#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>

#include "util/byte_size.h"
#include "check/suite.h"
#include "cli/build_info.h"
#include "cli/cli_context.h"
#include "cli/compare_flags.h"
#include "cli/device_flags.h"
#include "cli/flag_checks.h"
#include "cli/golden_flags.h"
#include "cli/history_flags.h"
#include "cli/run_settings_builder.h"
#include "cli/session_flags.h"
#include "cli/verbs.h"
#include "model/exit_codes.h"
#include "model/input_error.h"
#include "ranks/launch_env.h"
#include "ranks/world.h"
#include "run/collective_runner.h"
#include "run/conformance_runner.h"
#include "session/planning/job_list.h"
#include "session/job/run_paths.h"

namespace opcert {
namespace {

struct RunFlags {
  SessionFlags session;
  std::string progress = "auto";
  std::string golden;
  std::string devices;  // --devices, "" when not given
  DeviceMode device_mode = DeviceMode::kSpread;  // a user with more devices wants the run done sooner
  bool profile = false;  // --profile
  int workers = 0;       // --workers, 0 for auto
};

// Collectives run across ranks in-process, compute ops in worker processes: a run is one or the
// other. True for collectives; InputError for a mix, or for compute cases under an MPI launcher
// without --devices (with it, the ranks share the node's devices and rank 0 merges).
bool selects_collectives(const Suite& suite, const std::string& filter, const std::string& asked, bool devices) {
  const auto [collectives, compute] = case_families(suite, filter);
  if (collectives > 0 && compute > 0)
    throw InputError(fmt::format("suite '{}' selects {} collective and {} compute case(s): collectives run across ranks, "
                                 "compute ops in workers; run them separately (--filter, or a suite of each)",
                                 asked, collectives, compute));
  const LaunchEnv env = read_launch_env();
  if (collectives == 0 && !devices && !env.launcher.empty() && env.size.value_or(1) > 1)
    throw InputError(fmt::format("started by {} as rank {} of {}, but suite '{}' has no collectives: run compute suites "
                                 "without mpirun/srun, or give --devices so that each rank runs its node's devices and "
                                 "rank 0 merges the results",
                                 env.launcher, env.rank.value_or(0), env.size.value_or(1), asked));
  if (collectives > 0 && devices)
    throw InputError(fmt::format("--devices: suite '{}' selects collectives, which run one device per rank (the local "
                                 "rank picks it); drop --devices",
                                 asked));
  return collectives > 0;
}

// The settings of a run, compute or collective, from its flags.
RunSettings run_settings(const RunFlags& flags, const Suite& suite, const PlatformCatalog& platforms,
                         const Registry& registry, std::chrono::system_clock::time_point started) {
  const SessionFlags& f = flags.session;
  RunSettings s = conformance_settings(f.options, platforms, registry);
  apply_session_flags(s, s.resume, f, started, "run");
  if (const uint64_t max_memory = f.max_memory.empty() ? 0 : parse_byte_size(f.max_memory, "--max-memory"); max_memory > 0) {
    s.worker_options.insert(s.worker_options.end(), {"--max-memory", std::to_string(max_memory)});
    s.repro_options.insert(s.repro_options.end(), {"--max-memory", f.max_memory});
  }
  s.timeout = timeout_of(f);
  s.progress = *parse_progress_mode(flags.progress);
  s.profile = flags.profile;
  s.repro_suite = suite_for_repro(f.suite, suite);
  s.peer = resolve_peer(f.peer, platforms, f.options.platform, registry);
  s.environment = environment_inputs(registry, s.peer);
  return s;
}

// Ranks of an MPI job, or one rank that says so (DESIGN.md section 8). No peer here: nothing is compared.
int run_collective_suite(const RunFlags& flags, RunSettings& s, const Suite& suite, const Registry& registry,
                         const std::vector<BackendHandle*>& selected, const PlatformCatalog& platforms) {
  if (!flags.session.baseline.baseline.empty())
    throw InputError("--baseline compares runs of compute ops; compare collective runs afterwards with "
                     "`opcert compare BASE NEW` (rank 0's report)");
  if (s.resume) throw InputError("--resume finishes runs of compute ops; a collectives run is rerun whole");
  const std::unique_ptr<World> world = make_world();
  if (const std::string mpi = world->library_version(); !mpi.empty()) s.environment.libraries["mpi"] = mpi;
  // Backends without communicators have nothing to run here; keep them out of the report
  // (when none has any, the selection stays and the runner says so, exit 3).
  std::vector<RunTarget> targets = run_targets(registry, selected, "");
  std::vector<RunTarget> with_comms;
  for (const RunTarget& t : targets)
    if (t.backend->has_collectives()) with_comms.push_back(t);
  if (!with_comms.empty()) targets = std::move(with_comms);
  return across_ranks(*world, flags.session, s.out_dir, platforms, [&] { return run_collectives(targets, suite, s, *world); });
}

// Compute ops in workers, one per backend (and device, with --devices), across ranks with them.
int run_compute_suite(const RunFlags& flags, RunSettings& s, const Suite& suite, const Registry& registry,
                      const std::vector<BackendHandle*>& selected, const PlatformCatalog& platforms) {
  const DeviceRun devices(flags.devices);
  s.devices = devices.choice();
  s.device_mode = flags.device_mode;
  s.workers = flags.workers;
  s.world = devices.world();
  if (s.world && !flags.session.baseline.baseline.empty())
    throw InputError("--baseline with ranks of an MPI job: compare rank 0's output afterwards with `opcert compare`");
  use_golden_set(check_golden_set(flags.golden, suite, flags.session.seed, flags.session.filter), s);
  const int exit_code = run_conformance(run_targets(registry, selected, s.peer), suite, s);
  return after_session(exit_code, flags.session, s.out_dir, platforms, !s.world || s.world->rank() == 0);
}

int run_verb(const CLI::App& verb, const RunFlags& flags) {
  const auto started = std::chrono::system_clock::now();
  const SessionFlags& f = flags.session;
  filter_cases({}, f.filter);  // a bad expression is bad usage before anything loads
  if (!flags.devices.empty()) (void)parse_device_choice(flags.devices);  // so is a bad --devices
  check_baseline_flags(verb, f.baseline);
  if (read_launch_env().rank.value_or(0) == 0) check_history_flags(f.history);
  const PlatformCatalog platforms = load_platform_catalog(f.options);
  const Suite suite = load_suite(f.suite, f.seed);
  auto registry = load_registry(f.options);
  if (read_launch_env().rank.value_or(0) == 0) print_unavailable(*registry, f.options);  // once per job, not per rank
  const auto selected = select_backends(*registry, f.options.backend);
  RunSettings s = run_settings(flags, suite, platforms, *registry, started);
  if (selects_collectives(suite, f.filter, f.suite, !flags.devices.empty()))
    return run_collective_suite(flags, s, suite, *registry, selected, platforms);
  return run_compute_suite(flags, s, suite, *registry, selected, platforms);
}

}  // namespace

void add_run_verb(CLI::App& app, int& exit_code) {
  auto* verb = app.add_subcommand("run", "Run conformance suites against the selected backends");
  auto flags = std::make_shared<RunFlags>();
  add_session_flags(*verb, flags->session, "smoke",
                    {.suite = "Suite name (under suites/, see docs/SUITES.md) or a suite file",
                     .filter = "Run only cases whose id matches this regular expression (ECMAScript)",
                     .resume = "Finish the run in DIR, started with the same arguments: keep its results, run what is left",
                     .impl = "Implementation keys to test: comma-separated globs, '!' excludes (default: every "
                             "implementation)",
                     .peer_gives = "the alignment figure"});
  add_timeout_flag(*verb, flags->session, "Per-case timeout in seconds; a case past it is TIMEOUT");
  verb->add_option("--progress", flags->progress, "Progress display: a bar on a terminal (auto), bar, or plain lines")
      ->check(one_of({"auto", "bar", "plain"}))
      ->capture_default_str();
  add_devices_flag(*verb, flags->devices);
  add_device_mode_flag(*verb, flags->device_mode);
  add_workers_flag(*verb, flags->workers);
  verb->add_flag("--profile", flags->profile, "At the end, print where the time went: each phase per backend (docs/CLI.md)");
  add_golden_flag(*verb, flags->golden);
  add_after_session_flags(*verb, flags->session);
  verb->callback([verb, flags, &exit_code] { exit_code = run_verb(*verb, *flags); });
}

}  // namespace opcert
