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
#include "cli/verbs.h"
#include "model/exit_codes.h"
#include "model/input_error.h"
#include "ranks/launch_env.h"
#include "ranks/world.h"
#include "run/collective_runner.h"
#include "run/conformance_runner.h"
#include "session/job_list.h"
#include "session/run_paths.h"

namespace opcert {
namespace {

struct RunFlags {
  std::string suite = "smoke";
  std::string filter;
  std::string out;
  uint64_t seed = 1;
  double timeout_s = 60.0;
  std::string impl;
  std::string progress = "auto";
  std::string golden;
  std::string devices;  // --devices, "" when not given
  std::string resume;   // --resume DIR
  std::string max_memory;  // --max-memory SIZE, "" for none
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

}  // namespace

void add_run_verb(CLI::App& app, int& exit_code) {
  auto* verb = app.add_subcommand("run", "Run conformance suites against the selected backends");
  auto options = std::make_shared<CommonOptions>();
  auto flags = std::make_shared<RunFlags>();
  add_common_options(*verb, *options);
  verb->add_option("--suite", flags->suite, "Suite name (under suites/, see docs/SUITES.md) or a suite file")
      ->type_name("NAME|FILE")
      ->capture_default_str();
  verb->add_option("--filter", flags->filter, "Run only cases whose id matches this regular expression (ECMAScript)")
      ->type_name("REGEX")
      ->check(regular_expression());
  verb->add_option("--out", flags->out, "Output directory (default: out/<UTC timestamp>)")->type_name("DIR");
  verb->add_option("--resume", flags->resume,
                   "Finish the run in DIR, started with the same arguments: keep its results, run what is left")
      ->type_name("DIR");
  verb->add_option("--seed", flags->seed, "Seed of the generated inputs")->check(whole_number())->capture_default_str();
  verb->add_option("--max-memory", flags->max_memory,
                   "The most a case may need of host (and device) memory (K, M, G); a bigger case is SKIPPED")
      ->type_name("SIZE")
      ->check(byte_size());
  verb->add_option("--timeout", flags->timeout_s, "Per-case timeout in seconds; a case past it is TIMEOUT")
      ->type_name("SECONDS")
      ->check(positive_number("seconds"))
      ->capture_default_str();
  verb->add_option("--impl", flags->impl,
                   "Implementation keys to test: comma-separated globs, '!' excludes (default: every implementation)")
      ->type_name("GLOBS");
  auto peer = std::make_shared<PeerOptions>();
  add_peer_options(*verb, *peer, "the alignment figure");
  verb->add_option("--progress", flags->progress, "Progress display: a bar on a terminal (auto), bar, or plain lines")
      ->check(one_of({"auto", "bar", "plain"}))
      ->capture_default_str();
  add_devices_flag(*verb, flags->devices);

  add_golden_flag(*verb, flags->golden);
  auto baseline = std::make_shared<BaselineFlags>();
  add_baseline_flags(*verb, *baseline);
  auto history = std::make_shared<HistoryFlags>();
  add_history_flags(*verb, *history);

  verb->callback([verb, options, flags, peer, baseline, history, &exit_code] {
    const auto started = std::chrono::system_clock::now();
    filter_cases({}, flags->filter);  // a bad expression is bad usage before anything loads
    const uint64_t max_memory = flags->max_memory.empty() ? 0 : parse_byte_size(flags->max_memory, "--max-memory");
    if (!flags->devices.empty()) (void)parse_device_choice(flags->devices);  // so is a bad --devices
    check_baseline_flags(*verb, *baseline);
    if (read_launch_env().rank.value_or(0) == 0) check_history_flags(*history);
    const PlatformCatalog platforms = load_platform_catalog(*options);
    const Suite suite = load_suite(flags->suite, flags->seed);
    auto registry = load_registry(*options);
    if (read_launch_env().rank.value_or(0) == 0) print_unavailable(*registry, *options);  // once per job, not per rank
    const auto selected = select_backends(*registry, options->backend);

    RunSettings s = conformance_settings(*options, platforms, *registry);
    s.filter = flags->filter;
    s.impl_selection = flags->impl;
    s.out_dir = chosen_out_dir(flags->out, flags->resume, started, "run");
    s.resume = !flags->resume.empty();
    if (max_memory > 0) {
      s.worker_options.insert(s.worker_options.end(), {"--max-memory", std::to_string(max_memory)});
      s.repro_options.insert(s.repro_options.end(), {"--max-memory", flags->max_memory});
    }
    s.seed = flags->seed;
    s.timeout = std::chrono::milliseconds(static_cast<int64_t>(std::ceil(flags->timeout_s * 1000.0)));
    s.progress = *parse_progress_mode(flags->progress);
    s.repro_suite = suite_for_repro(flags->suite, suite);
    s.peer = resolve_peer(*peer, platforms, options->platform, *registry);
    s.environment = environment_inputs(*registry, s.peer);

    if (selects_collectives(suite, flags->filter, flags->suite, !flags->devices.empty())) {
      if (!baseline->baseline.empty())
        throw InputError("--baseline compares runs of compute ops; compare collective runs afterwards with "
                         "`opcert compare BASE NEW` (rank 0's report)");
      if (s.resume) throw InputError("--resume finishes runs of compute ops; a collectives run is rerun whole");
      // Ranks of an MPI job, or one rank that says so (DESIGN.md section 8). No peer here: nothing is compared.
      const std::unique_ptr<World> world = make_world();
      if (const std::string mpi = world->library_version(); !mpi.empty()) s.environment.libraries["mpi"] = mpi;
      // Backends without communicators have nothing to run here; keep them out of the report
      // (when none has any, the selection stays and the runner says so, exit 3).
      std::vector<RunTarget> targets = run_targets(*registry, selected, "");
      std::vector<RunTarget> with_comms;
      for (const RunTarget& t : targets)
        if (t.backend->has_collectives()) with_comms.push_back(t);
      if (!with_comms.empty()) targets = std::move(with_comms);
      try {
        exit_code = run_collectives(targets, suite, s, *world);
      } catch (...) {
        world->finalize();  // every rank throws alike (the same arguments), so they end together
        throw;
      }
      if (world->rank() == 0) keep_worse(exit_code, add_run_to_history(*history, s.out_dir, platforms));
      world->finalize();
      return;
    }
    const DeviceRun devices(flags->devices);
    s.devices = devices.choice();
    s.world = devices.world();
    if (s.world && !baseline->baseline.empty())
      throw InputError("--baseline with ranks of an MPI job: compare rank 0's output afterwards with `opcert compare`");
    use_golden_set(check_golden_set(flags->golden, suite, flags->seed, flags->filter), s);
    exit_code = run_conformance(run_targets(*registry, selected, s.peer), suite, s);
    if (!baseline->baseline.empty()) {
      const int gates = compare_with_baseline(baseline->baseline, s.out_dir, baseline->gates, platforms, options->platform);
      if (exit_code == kExitOk) exit_code = gates;
    }
    if (!s.world || s.world->rank() == 0) keep_worse(exit_code, add_run_to_history(*history, s.out_dir, platforms));
  });
}

}  // namespace opcert
