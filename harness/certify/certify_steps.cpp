#include "certify/certify_steps.h"

#include <fmt/format.h>
#include <opcert/backend_abi.h>

#include "certify/bundle_signature.h"
#include "model/exit_codes.h"
#include "model/input_error.h"
#include "model/utc_time.h"
#include "session/job/run_paths.h"

namespace opcert {

namespace fs = std::filesystem;

PlanSuites load_plan_suites(const CertificationPlan& plan) {
  PlanSuites loaded;
  for (const auto& planned : plan.suites) loaded.suites.push_back(load_suite(planned.suite, planned.seed));
  for (const auto& suite : loaded.suites)
    for (const auto& c : suite.cases) loaded.ops.insert(c.op);
  return loaded;
}

fs::path certify_bundle_dir(const std::string& out, std::chrono::system_clock::time_point started) {
  const fs::path default_dir = default_out_dir(started);
  return out.empty() ? default_dir.parent_path() / ("certify-" + default_dir.filename().string()) : fs::path(out);
}

void check_bundle_target(const fs::path& bundle, const std::string& sign_key) {
  if (fs::exists(bundle) && !(fs::is_directory(bundle) && fs::is_empty(bundle)))
    throw InputError(fmt::format("--out '{}' exists and is not empty: a bundle's checksums cover every file in "
                                 "it; give a new directory",
                                 bundle.string()));
  if (!sign_key.empty()) (void)ed25519_fingerprint(sign_key, true);  // a bad key before hours of runs
}

void require_one_backend(const std::vector<std::string>& names, const std::string& selection) {
  if (names.size() == 1) return;
  std::string listed;
  for (const auto& name : names) listed += (listed.empty() ? "" : ", ") + name;
  throw InputError(fmt::format("--backend '{}' selects {} backends ({}): a certificate is of one backend; name it",
                               selection, names.size(), listed));
}

std::string report_dir_of(const PlannedSuite& s) { return "reports/" + suite_folder_name(s.suite, s.seed); }

BundleInputs bundle_inputs(const CertificationPlan& plan, const PlanSuites& suites, const std::string& backend,
                           const std::string& sign_key, const std::string& first_device_name) {
  BundleInputs inputs;
  inputs.plan = plan;
  inputs.backend = backend;
  inputs.sign_key = sign_key;
  inputs.plan_ops = suites.ops;
  inputs.started_at = now_utc();
  inputs.command_line = current_command_line();
  inputs.abi_version = fmt::format("{}.{}", OPCERT_ABI_VERSION_MAJOR, OPCERT_ABI_VERSION_MINOR);
  inputs.first_device_name = first_device_name;
  return inputs;
}

int seal_bundle(const fs::path& bundle, const BundleInputs& inputs, std::size_t planned) {
  const Certificate cert = write_bundle(bundle, inputs);
  fmt::print("opcert certify: {} {} on plan {}: {} results{}; certified {} of {} op x dtype pairs of the plan; "
             "bundle in {}\n",
             inputs.backend, cert.certified ? "CERTIFIED" : "NOT CERTIFIED", inputs.plan.name, cert.results,
             cert.reason.empty() ? "" : " (" + cert.reason + ")", cert.certified_pairs, cert.plan_pairs,
             bundle.string());
  return inputs.suites.size() < planned ? kExitInterrupted : cert.certified ? kExitOk : kExitCheckFailed;
}

}  // namespace opcert
