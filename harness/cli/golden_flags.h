// `--golden DIR` of `opcert run` and `opcert certify`: the run's workers judge every case against
// a golden set (golden/golden_set.h) instead of computing references with LibTorch, so that a
// machine without LibTorch certifies (docs/CERTIFY.md, "Golden sets").
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "check/suite.h"
#include "golden/golden_set.h"
#include "run/run_settings.h"
#include "session/execution.h"

namespace opcert {

/// Adds --golden to a verb.
void add_golden_flag(CLI::App& verb, std::string& dir);

/// Before anything runs, for a suite of compute ops: without a golden set on a build without
/// LibTorch, an InputError saying to give one (its references cannot be computed); with one, the
/// set must hold `suite` under `seed` (InputError naming what it holds otherwise).
void require_references(const std::string& dir, const Suite& suite, uint64_t seed);

/// Nothing when `dir` is empty. Else opens the set and checks it holds `suite` under `seed`
/// (InputError, exit 2, naming what it holds otherwise), and has the run's workers read their
/// references from it: the worker and repro options, and the report's libraries entry
/// "golden_set" (the manifest's sha256 and the folder).
void use_golden_set(const std::string& dir, const Suite& suite, uint64_t seed, RunSettings& s);

/// The worker's side: the reference source for ExecutionOptions::reference, reading `suite`'s
/// cases from the set in `dir`. Throws InputError as use_golden_set does.
ExecutionOptions::ReferenceSource golden_reference_source(const std::string& dir, const Suite& suite, uint64_t seed);

}  // namespace opcert
