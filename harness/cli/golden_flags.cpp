#include "cli/golden_flags.h"

#include <fmt/format.h>

#include <filesystem>
#include <memory>
#include <set>

#include "cli/flag_checks.h"
#include "golden/golden_export.h"
#include "model/input_error.h"
#include "reference/reference.h"

namespace opcert {

void add_golden_flag(CLI::App& verb, std::string& dir) {
  verb.add_option("--golden", dir,
                  "Judge every case against this golden set (`opcert golden export`) instead of computing references "
                  "with LibTorch: for a machine without it")
      ->type_name("DIR")
      ->check(existing_path());
}

std::optional<GoldenUse> check_golden_set(const std::string& dir, const Suite& suite, uint64_t seed, const std::string& filter) {
  if (dir.empty()) {
    if (!reference_available())
      throw InputError(fmt::format("suite '{}': this opcert was built without LibTorch and cannot compute golden references: "
                                   "give --golden DIR, a set written by `opcert golden export` on a machine with LibTorch",
                                   suite.name));
    return std::nullopt;
  }
  const std::string absolute = std::filesystem::absolute(dir).lexically_normal().string();
  const GoldenSet set = GoldenSet::open(absolute);
  const GoldenSuiteEntry& entry = set.require(suite.name, suite.sha256, seed);
  // A set exported with --filter holds part of the suite: what this run selects must all be there,
  // or the run would end in ERRORs (and a certificate fail) for want of a file.
  std::set<std::string> held;
  for (const GoldenCaseEntry& c : entry.cases) held.insert(c.id);
  std::vector<std::string> missing;
  for (std::size_t i : golden_case_indices(suite, filter))
    if (!held.count(suite.cases[i].id)) missing.push_back(suite.cases[i].id);
  if (!missing.empty())
    throw InputError(fmt::format("--golden '{}': {} case(s) of suite '{}' this run selects are not in the set (first: '{}'); "
                                 "export them, or narrow the run with --filter",
                                 absolute, missing.size(), suite.name, missing.front()));
  return GoldenUse{absolute, set.manifest_sha256()};
}

void use_golden_set(const std::optional<GoldenUse>& use, RunSettings& s) {
  if (!use) return;
  s.worker_options.insert(s.worker_options.end(), {"--golden", use->dir});
  s.repro_options.insert(s.repro_options.end(), {"--golden", use->dir});
  s.environment.libraries["golden_set"] = use->manifest_sha256 + " " + use->dir;
}

ExecutionOptions::ReferenceSource golden_reference_source(const std::string& dir, const Suite& suite, uint64_t seed) {
  auto set = std::make_shared<const GoldenSet>(GoldenSet::open(dir));
  const GoldenSuiteEntry* entry = &set->require(suite.name, suite.sha256, seed);
  return [set, entry](const Case& c, std::span<const HostTensor> inputs, const SamplePlan& sample) {
    return set->reference(*entry, c, inputs, sample);
  };
}

}  // namespace opcert
