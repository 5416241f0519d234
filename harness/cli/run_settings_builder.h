// The settings every conformance run of this process shares (`opcert run`, and each suite of
// `opcert certify`): its workers load the same plugins and platform configs as this process, and
// its repro lines say how.
#pragma once

#include "cli/cli_context.h"
#include "check/suite.h"
#include "run/run_settings.h"

namespace opcert {

/// platform, platforms, command_line, executable, worker_options and repro_options from the
/// common flags; the caller sets the rest (cases, seed, out_dir, timeout, peer, environment).
RunSettings conformance_settings(const CommonOptions& options, const PlatformCatalog& platforms);

/// The suite as repro lines name it: a file by its absolute path, a named suite by its name.
std::string suite_for_repro(const std::string& asked, const Suite& suite);

}  // namespace opcert
