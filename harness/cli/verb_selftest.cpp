// `opcert selftest` (docs/CLI.md, "selftest"): the detection power of the shipped suites, proved
// on the mutant backend (backends/mutants). Each suite runs every mutant and its correct twin
// through the ordinary run (workers, the C ABI, the result stream), and the mutant detection reads
// the results back: which slips some case caught, and where a twin raised a false alarm.
#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <set>

#include "check/suite.h"
#include "cli/cli_context.h"
#include "cli/flag_checks.h"
#include "cli/run_settings_builder.h"
#include "cli/verbs.h"
#include "loader/install_layout.h"
#include "loader/name_selection.h"
#include "model/exit_codes.h"
#include "model/input_error.h"
#include "opkit/op_registry.h"
#include "ranks/launch_env.h"
#include "ranks/world.h"
#include "reports/report_reader.h"
#include "reports/report_writer.h"
#include "run/collective_runner.h"
#include "run/conformance_runner.h"
#include "selftest/detection_report.h"
#include "selftest/mutant_detection.h"
#include "session/run_paths.h"

namespace opcert {
namespace {

struct SelftestFlags {
  std::vector<std::string> suites;
  std::string mutants;
  std::string out;
  uint64_t seed = 1;
  double timeout_s = 60.0;
  std::string progress = "quiet";
  bool json = false;
};

// Whether a suite's cases are collectives (true) or compute ops (false); a mix is refused, as by
// `opcert run`: collectives run across ranks, compute ops in workers.
bool collective_suite(const Suite& suite, const std::string& name) {
  const auto [collectives, compute] = case_families(suite, "");
  if (collectives > 0 && compute > 0)
    throw InputError(fmt::format("suite '{}' mixes {} collective and {} compute case(s): give a suite of each", name,
                                 collectives, compute));
  return collectives > 0;
}

// A collective's mutants differ from their twins only across ranks; compute suites run in workers,
// without a launcher. The suites and the launch must agree.
void check_launch(bool collectives, const std::string& name, int ranks) {
  if (collectives && ranks < 2)
    throw InputError(fmt::format("suite '{}' holds collectives, whose mutants differ from their twins only across ranks: "
                                 "run `mpirun -np 4 opcert selftest --suite {}`",
                                 name, name));
  if (!collectives && ranks > 1)
    throw InputError(fmt::format("suite '{}' holds no collectives: run compute suites without mpirun/srun", name));
}

// The mutants to run: those of the mutant backend whose op is of the run's kind (collectives or
// compute) and whose key --mutant selects; InputError when it selects none. Every twin runs too,
// whatever --mutant excludes: each mutant is judged against its own.
std::vector<std::string> chosen_mutants(const BackendHandle& backend, const std::string& globs, bool collectives) {
  const NameSelection selection(globs);
  std::vector<std::string> keys;
  for (const ImplementationInfo& impl : backend.implementations())
    if (is_collective_op(impl.op) == collectives && !impl.key.ends_with(std::string(".") + kTwinSlip) &&
        selection.matches(impl.key))
      keys.push_back(impl.key);
  if (keys.empty())
    throw InputError(fmt::format("--mutant '{}' selects none of the mutant backend's {} mutants (opcert list --plugin {} "
                                 "--backend mutants lists them)",
                                 globs, collectives ? "collective" : "compute", mutants_library().string()));
  return keys;
}

std::string implementation_selection(const std::vector<std::string>& mutants) {
  std::string keys = std::string(kMutantKeyPrefix) + "*." + kTwinSlip;
  for (const std::string& key : mutants) keys += "," + key;
  return keys;
}

}  // namespace

void add_selftest_verb(CLI::App& app, int& exit_code) {
  auto* verb = app.add_subcommand("selftest", "Prove the suites' detection power on the shipped mutant backend");
  auto flags = std::make_shared<SelftestFlags>();
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

  verb->callback([flags, &exit_code] {
    const auto started = std::chrono::system_clock::now();
    const LaunchEnv launch = read_launch_env();
    const int launched_ranks = launch.launcher.empty() ? 1 : launch.size.value_or(1);
    std::vector<std::string> names = flags->suites;
    if (names.empty()) names = {launched_ranks > 1 ? "collectives" : "smoke"};
    std::vector<Suite> suites;
    std::set<std::string> paths, folders;
    bool collectives = false;
    for (const std::string& name : names) {
      suites.push_back(load_suite(name, flags->seed));
      if (!paths.insert(std::filesystem::weakly_canonical(suites.back().path).string()).second)
        throw InputError(fmt::format("--suite '{}' is given twice; give each suite once", name));
      if (!folders.insert(suite_folder_name(name, flags->seed)).second)
        throw InputError(fmt::format("--suite '{}' would write into the folder of another suite of the same name ({}); "
                                     "rename one of the files",
                                     name, suite_folder_name(name, flags->seed)));
      collectives = collective_suite(suites.back(), name);
      check_launch(collectives, name, launched_ranks);
    }

    CommonOptions options;
    options.backend = "mutants";
    const std::filesystem::path library = mutants_library();
    if (!std::filesystem::exists(library))
      throw NoBackendError(fmt::format("the mutant backend {} is missing: build the opcert_mutants target, or reinstall opcert",
                                       library.string()));
    options.plugin_libraries = {library.string()};
    const PlatformCatalog platforms = load_platform_catalog(options);
    auto registry = load_registry(options);
    const auto selected = select_backends(*registry, options.backend);
    const std::vector<std::string> mutants = chosen_mutants(*selected.front(), flags->mutants, collectives);
    const std::filesystem::path timestamped = default_out_dir(started);
    const std::filesystem::path out = flags->out.empty()
                                          ? timestamped.parent_path() / ("selftest-" + timestamped.filename().string())
                                          : std::filesystem::path(flags->out);
    const std::unique_ptr<World> world = launched_ranks > 1 ? make_world() : nullptr;
    if (world && world->size() != launched_ranks) {
      const int size = world->size();
      world->finalize();
      throw InputError(fmt::format("started by {} as one of {} ranks, but this opcert sees {} (built without MPI?): "
                                   "the collectives' mutants need the ranks",
                                   launch.launcher, launched_ranks, size));
    }
    const bool judges = world == nullptr || world->rank() == 0;

    DetectionTally tally;
    for (const std::string& key : mutants) tally.expect(key);
    std::vector<uint8_t> verdict = {static_cast<uint8_t>(kExitOk)};
    try {
      for (std::size_t i = 0; i < suites.size(); ++i) {
        RunSettings s = conformance_settings(options, platforms, *registry);
        s.impl_selection = implementation_selection(mutants);
        s.out_dir = out / suite_folder_name(names[i], flags->seed);
        s.seed = flags->seed;
        s.timeout = std::chrono::milliseconds(static_cast<int64_t>(std::ceil(flags->timeout_s * 1000.0)));
        s.progress = *parse_progress_mode(flags->progress);
        s.repro_suite = suite_for_repro(names[i], suites[i]);
        s.environment = environment_inputs(*registry, "");
        const int code = world ? run_collectives(run_targets(*registry, selected, ""), suites[i], s, *world)
                               : run_conformance(run_targets(*registry, selected, ""), suites[i], s);
        if (code == kExitInterrupted) {
          if (world) world->finalize();
          exit_code = code;  // what finished is in the suite's reports; no verdict on a part
          return;
        }
        if (judges) tally.add(read_run_report(s.out_dir), names[i]);
      }
    } catch (...) {
      if (world) world->finalize();  // every rank throws alike (the same arguments), so they end together
      throw;
    }
    // Rank 0 judges and writes; every rank of a job exits with its verdict.
    if (judges) {
      try {
        const DetectionSummary summary = tally.summary();
        const std::string json = detection_json(summary).dump(2) + "\n";
        write_file_atomically(out / "selftest.json", json);
        write_file_atomically(out / "selftest.md", detection_markdown(summary));
        if (flags->json) fmt::print("{}", json);
        else fmt::print("\nMutant detection\n{}selftest.json and selftest.md in {}\n", detection_text(summary), out.string());
        verdict[0] = static_cast<uint8_t>(summary.clean() ? kExitOk : kExitCheckFailed);
      } catch (const std::exception& e) {
        if (!world) throw;
        fmt::print(stderr, "opcert: error: {}\n", e.what());  // the other ranks still wait for the verdict
        verdict[0] = static_cast<uint8_t>(kExitCheckFailed);
      }
    }
    if (world) {
      if (!world->broadcast(verdict, 0, std::chrono::steady_clock::now() + std::chrono::seconds(60)))
        verdict[0] = static_cast<uint8_t>(kExitCheckFailed);  // rank 0 is gone: no verdict is no pass
      world->finalize();
    }
    exit_code = verdict[0];
  });
}

}  // namespace opcert
