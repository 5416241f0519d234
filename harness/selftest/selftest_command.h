// `opcert selftest` once its flags are read (docs/CLI.md, "selftest"): which suites judge and
// whether the launch suits them, which mutants run, one run of each suite on the mutant backend,
// then rank 0's verdict written (selftest.json, selftest.md) and shared with every rank.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "check/suite.h"
#include "loader/backend_handle.h"
#include "ranks/world.h"
#include "reports/progress.h"

namespace opcert {

struct SelftestRequest {
  std::vector<std::string> suites;  ///< --suite; none: smoke, or collectives under an MPI launcher
  std::string mutants;              ///< --mutant globs; "" for all
  std::string out;                  ///< --out; "" for out/selftest-<UTC timestamp>
  uint64_t seed = 1;
  double timeout_s = 60.0;
  std::string progress = "quiet";
  bool json = false;                ///< print selftest.json instead of the table
};

/// One suite's run on the mutant backend, as the selftest sets it.
struct SuiteRun {
  const Suite& suite;
  std::string name;                 ///< as --suite named it
  std::string impl_selection;       ///< every twin and the chosen mutants
  std::filesystem::path out_dir;
  uint64_t seed = 1;
  std::chrono::milliseconds timeout{0};
  ProgressMode progress = ProgressMode::kQuiet;
};

/// The mutant backend as the caller loaded it (with this process's platforms and plugin settings),
/// and how a suite runs on it: on the ranks of `world`, or in workers when it is null. `run`
/// returns the run's exit code.
struct MutantBackend {
  const BackendHandle* backend = nullptr;
  std::function<int(const SuiteRun&, World*)> run;
};

/// Runs the selftest; `load` is called once, with the mutant library, after the suites passed
/// their checks. Returns the exit code: kExitOk when every mutant was caught and no twin raised an
/// alarm, kExitCheckFailed otherwise, kExitInterrupted for a run cut short (no verdict). InputError
/// for suites or a launch that do not fit, NoBackendError for a missing mutant library.
int selftest_command(const SelftestRequest& request, const std::function<MutantBackend(const std::filesystem::path&)>& load);

}  // namespace opcert
