#include "cli/golden_flags.h"

#include <filesystem>
#include <memory>

#include <fmt/format.h>

#include "model/input_error.h"
#include "reference/reference.h"

namespace opcert {

void add_golden_flag(CLI::App& verb, std::string& dir) {
  verb.add_option("--golden", dir,
                  "Judge every case against this golden set (`opcert golden export`) instead of computing references "
                  "with LibTorch: for a machine without it")
      ->type_name("DIR");
}

void require_references(const std::string& dir, const Suite& suite, uint64_t seed) {
  if (dir.empty()) {
    if (!reference_available())
      throw InputError(fmt::format("suite '{}': this opcert was built without LibTorch and cannot compute golden references: "
                                   "give --golden DIR, a set written by `opcert golden export` on a machine with LibTorch",
                                   suite.name));
    return;
  }
  (void)GoldenSet::open(std::filesystem::absolute(dir)).require(suite.name, suite.sha256, seed);
}

void use_golden_set(const std::string& dir, const Suite& suite, uint64_t seed, RunSettings& s) {
  if (dir.empty()) return;
  const std::string absolute = std::filesystem::absolute(dir).lexically_normal().string();
  const GoldenSet set = GoldenSet::open(absolute);
  (void)set.require(suite.name, suite.sha256, seed);
  s.worker_options.insert(s.worker_options.end(), {"--golden", absolute});
  s.repro_options.insert(s.repro_options.end(), {"--golden", absolute});
  s.environment.libraries["golden_set"] = set.manifest_sha256() + " " + absolute;
}

ExecutionOptions::ReferenceSource golden_reference_source(const std::string& dir, const Suite& suite, uint64_t seed) {
  auto set = std::make_shared<const GoldenSet>(GoldenSet::open(dir));
  const GoldenSuiteEntry* entry = &set->require(suite.name, suite.sha256, seed);
  return [set, entry](const Case& c, std::span<const HostTensor> inputs, const SamplePlan& sample) {
    return set->reference(*entry, c, inputs, sample);
  };
}

}  // namespace opcert
