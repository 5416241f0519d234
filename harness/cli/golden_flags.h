// `--golden DIR` of `opcert run` and `opcert certify`: the run's workers judge every case against
// a golden set (golden/golden_set.h) instead of computing references with LibTorch, so that a
// machine without LibTorch certifies (docs/CERTIFY.md, "Golden sets").
#pragma once

#include <CLI/CLI.hpp>
#include <optional>
#include <string>

#include "check/suite.h"
#include "golden/golden_set.h"
#include "run/run_settings.h"
#include "session/execution/execution.h"

namespace opcert {

/// Adds --golden to a verb.
void add_golden_flag(CLI::App& verb, std::string& dir);

/// A golden set checked for one suite under one seed: what the run's workers are told.
struct GoldenUse {
  std::string dir;              ///< absolute
  std::string manifest_sha256;  ///< the set's manifest, as the report records it
};

/// Before anything runs, for a suite of compute ops. Without a set (`dir` empty): nullopt, or on a
/// build without LibTorch an InputError saying to give one. With one: the set must hold `suite`
/// under `seed` and every case `filter` selects of it (InputError, exit 2, naming what is missing).
std::optional<GoldenUse> check_golden_set(const std::string& dir, const Suite& suite, uint64_t seed, const std::string& filter);

/// Has the run's workers read their references from `use` (nothing for nullopt): the worker and
/// repro options, and the report's libraries entry "golden_set" (the manifest's sha256, the folder).
void use_golden_set(const std::optional<GoldenUse>& use, RunSettings& s);

/// The worker's side: the reference source for ExecutionOptions::reference, reading `suite`'s
/// cases from the set in `dir`. Throws InputError as check_golden_set does.
ExecutionOptions::ReferenceSource golden_reference_source(const std::string& dir, const Suite& suite, uint64_t seed);

}  // namespace opcert
