// The steps of `opcert certify` around its runs (docs/CERTIFY.md): the plan's suites, the bundle's
// folder and key checked before hours of runs, the one backend certified, the bundle's inputs, and
// at the end the sealed bundle and its verdict. The cli runs each suite (`opcert run`'s runner).
#pragma once

#include <chrono>
#include <cstddef>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "certify/certification_bundle.h"
#include "certify/certification_plan.h"
#include "check/suite.h"

namespace opcert {

/// The plan's suites, each loaded with its seed, and every op they have cases of.
struct PlanSuites {
  std::vector<Suite> suites;
  std::set<std::string> ops;
};
PlanSuites load_plan_suites(const CertificationPlan& plan);

/// --out, or out/certify-<UTC timestamp of `started`>.
std::filesystem::path certify_bundle_dir(const std::string& out, std::chrono::system_clock::time_point started);

/// Rank 0's checks before the runs: `bundle` new or empty (its checksums cover every file in it),
/// and the signing key usable. InputError otherwise.
void check_bundle_target(const std::filesystem::path& bundle, const std::string& sign_key);

/// InputError unless --backend `selection` selected exactly one backend (`names`): a certificate
/// is of one backend.
void require_one_backend(const std::vector<std::string>& names, const std::string& selection);

/// One folder per planned run, relative to the bundle: "reports/sweeps-gemm.seed1".
std::string report_dir_of(const PlannedSuite& s);

/// What the bundle records before the runs: the plan, the backend and its first device, the key,
/// the ops, the start, the command line and the ABI version.
BundleInputs bundle_inputs(const CertificationPlan& plan, const PlanSuites& suites, const std::string& backend,
                           const std::string& sign_key, const std::string& first_device_name);

/// Seals the bundle (write_bundle) and prints the verdict line. Returns the exit code:
/// kExitInterrupted when fewer than `planned` suites ran, kExitOk certified, kExitCheckFailed not.
int seal_bundle(const std::filesystem::path& bundle, const BundleInputs& inputs, std::size_t planned);

}  // namespace opcert
