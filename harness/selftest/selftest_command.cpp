#include "selftest/selftest_command.h"

#include <fmt/format.h>

#include <set>

#include "loader/install_layout.h"
#include "loader/name_selection.h"
#include "model/exit_codes.h"
#include "model/input_error.h"
#include "opkit/op_registry.h"
#include "ranks/launch_env.h"
#include "reports/report_reader.h"
#include "reports/report_writer.h"
#include "selftest/detection_report.h"
#include "selftest/mutant_detection.h"
#include "session/job/run_paths.h"
#include "util/duration.h"

namespace opcert {
namespace {

namespace fs = std::filesystem;

// Whether a suite's cases are collectives (true) or compute ops (false); a mix is refused, as by
// `opcert run`: collectives run across ranks, compute ops in workers.
bool collective_suite(const Suite& suite, const std::string& name) {
  std::size_t collectives = 0, compute = 0;
  for (const Case& c : suite.cases) ++(is_collective_op(c.op) ? collectives : compute);
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

// The suites --suite names (or the default for the launch), each once, each of the launch's kind;
// `collectives` says which kind that is.
std::vector<Suite> load_suites(std::vector<std::string>& names, uint64_t seed, int launched_ranks, bool& collectives) {
  if (names.empty()) names = {launched_ranks > 1 ? "collectives" : "smoke"};
  std::vector<Suite> suites;
  std::set<std::string> paths, folders;
  for (const std::string& name : names) {
    suites.push_back(load_suite(name, seed));
    if (!paths.insert(fs::weakly_canonical(suites.back().path).string()).second)
      throw InputError(fmt::format("--suite '{}' is given twice; give each suite once", name));
    if (!folders.insert(suite_folder_name(name, seed)).second)
      throw InputError(fmt::format("--suite '{}' would write into the folder of another suite of the same name ({}); "
                                   "rename one of the files",
                                   name, suite_folder_name(name, seed)));
    collectives = collective_suite(suites.back(), name);
    check_launch(collectives, name, launched_ranks);
  }
  return suites;
}

// The ranks of the launch, or null for a process alone; InputError when this opcert cannot join them.
std::unique_ptr<World> launched_world(const LaunchEnv& launch, int launched_ranks) {
  std::unique_ptr<World> world = launched_ranks > 1 ? make_world() : nullptr;
  if (world && world->size() != launched_ranks) {
    const int size = world->size();
    world->finalize();
    throw InputError(fmt::format("started by {} as one of {} ranks, but this opcert sees {} (built without MPI?): "
                                 "the collectives' mutants need the ranks",
                                 launch.launcher, launched_ranks, size));
  }
  return world;
}

// Rank 0 judges and writes: the exit code of its verdict.
int judge(const DetectionTally& tally, const fs::path& out, bool json_only, bool ranks) {
  try {
    const DetectionSummary summary = tally.summary();
    const std::string json = detection_json(summary).dump(2) + "\n";
    write_file_atomically(out / "selftest.json", json);
    write_file_atomically(out / "selftest.md", detection_markdown(summary));
    if (json_only) fmt::print("{}", json);
    else fmt::print("\nMutant detection\n{}selftest.json and selftest.md in {}\n", detection_text(summary), out.string());
    return summary.clean() ? kExitOk : kExitCheckFailed;
  } catch (const std::exception& e) {
    if (!ranks) throw;
    fmt::print(stderr, "opcert: error: {}\n", e.what());  // the other ranks still wait for the verdict
    return kExitCheckFailed;
  }
}

}  // namespace

int selftest_command(const SelftestRequest& request, const std::function<MutantBackend(const fs::path&)>& load) {
  const auto started = std::chrono::system_clock::now();
  const LaunchEnv launch = read_launch_env();
  const int launched_ranks = launch.launcher.empty() ? 1 : launch.size.value_or(1);
  std::vector<std::string> names = request.suites;
  bool collectives = false;
  const std::vector<Suite> suites = load_suites(names, request.seed, launched_ranks, collectives);

  const fs::path library = mutants_library();
  if (!fs::exists(library))
    throw NoBackendError(fmt::format("the mutant backend {} is missing: build the opcert_mutants target, or reinstall opcert",
                                     library.string()));
  const MutantBackend mutants_backend = load(library);
  const std::vector<std::string> mutants = chosen_mutants(*mutants_backend.backend, request.mutants, collectives);
  const fs::path timestamped = default_out_dir(started);
  const fs::path out =
      request.out.empty() ? timestamped.parent_path() / ("selftest-" + timestamped.filename().string()) : fs::path(request.out);
  const std::unique_ptr<World> world = launched_world(launch, launched_ranks);
  const bool judges = world == nullptr || world->rank() == 0;

  DetectionTally tally;
  for (const std::string& key : mutants) tally.expect(key);
  try {
    for (std::size_t i = 0; i < suites.size(); ++i) {
      const SuiteRun run{suites[i], names[i], implementation_selection(mutants), out / suite_folder_name(names[i], request.seed),
                         request.seed, milliseconds_from_seconds(request.timeout_s), *parse_progress_mode(request.progress)};
      const int code = mutants_backend.run(run, world.get());
      if (code == kExitInterrupted) {
        if (world) world->finalize();
        return code;  // what finished is in the suite's reports; no verdict on a part
      }
      if (judges) tally.add(read_run_report(run.out_dir), names[i]);
    }
  } catch (...) {
    if (world) world->finalize();  // every rank throws alike (the same arguments), so they end together
    throw;
  }
  // Rank 0 judges and writes; every rank of a job exits with its verdict.
  std::vector<uint8_t> verdict = {static_cast<uint8_t>(judges ? judge(tally, out, request.json, world != nullptr) : kExitOk)};
  if (world) {
    if (!world->broadcast(verdict, 0, std::chrono::steady_clock::now() + std::chrono::seconds(60)))
      verdict[0] = static_cast<uint8_t>(kExitCheckFailed);  // rank 0 is gone: no verdict is no pass
    world->finalize();
  }
  return verdict[0];
}

}  // namespace opcert
