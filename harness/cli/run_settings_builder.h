// The settings every conformance run of this process shares (`opcert run`, and each suite of
// `opcert certify`): its workers load the same plugins and platform configs as this process, and
// its repro lines say how.
#pragma once

#include "cli/cli_context.h"
#include "check/suite.h"
#include "run/run_settings.h"

namespace opcert {

/// platform, platforms, command_line, executable and worker_options of `s` from the common flags
/// and the plugin steps `registry`'s probe refused: what makes the workers of `opcert run` and
/// `opcert bench` load what this process loaded.
void set_worker_settings(SessionSettings& s, const CommonOptions& options, const PlatformCatalog& platforms,
                         const Registry& registry);

/// set_worker_settings and the repro_options; the caller sets the rest (cases, seed, out_dir,
/// timeout, peer, environment).
RunSettings conformance_settings(const CommonOptions& options, const PlatformCatalog& platforms, const Registry& registry);

/// How many of a suite's cases `filter` selects are collectives, which run across ranks, and how
/// many are compute ops, which run in workers: a run is one or the other.
struct CaseFamilies {
  std::size_t collectives = 0;
  std::size_t compute = 0;
};
CaseFamilies case_families(const Suite& suite, const std::string& filter);

/// The suite as repro lines name it: a file by its absolute path, a named suite by its name.
std::string suite_for_repro(const std::string& asked, const Suite& suite);

}  // namespace opcert
