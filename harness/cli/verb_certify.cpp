// `opcert certify` (docs/CERTIFY.md): runs every suite of a certification plan on one backend, as
// `opcert run` would, into one bundle, and seals it (manifest, summary, SHA256SUMS, an optional
// Ed25519 signature). Exit 0 certified, 1 not certified.
#include <fmt/format.h>

#include <chrono>
#include <optional>

#include "certify/certify_steps.h"
#include "cli/cli_context.h"
#include "cli/device_flags.h"
#include "cli/flag_checks.h"
#include "cli/golden_flags.h"
#include "cli/run_settings_builder.h"
#include "cli/verbs.h"
#include "model/exit_codes.h"
#include "model/utc_time.h"
#include "run/conformance_runner.h"
#include "util/duration.h"

namespace opcert {
namespace {

struct CertifyFlags {
  std::string plan;
  std::string out;
  std::string sign_key;
  double timeout_s = 60.0;
  std::string golden;
  std::string devices;  // --devices, "" when not given
  DeviceMode device_mode = DeviceMode::kEach;  // a node's certificate must name a bad device
  int workers = 0;                              // --workers, 0 for auto
};

// The plan's suites run one after the other on the one selected backend, as `opcert run` runs a
// suite, into the bundle that rank 0 (or this process alone) then seals.
int certify(const CertifyFlags& f, const CommonOptions& options, const PeerOptions& peer) {
  const auto started = std::chrono::system_clock::now();
  if (!f.devices.empty()) (void)parse_device_choice(f.devices);  // bad usage before anything loads
  const CertificationPlan plan = load_certification_plan(f.plan);
  const PlatformCatalog platforms = load_platform_catalog(options);
  const PlanSuites loaded = load_plan_suites(plan);
  const std::vector<Suite>& suites = loaded.suites;
  std::vector<std::optional<GoldenUse>> golden;  // checked for every suite before hours of runs
  for (std::size_t i = 0; i < suites.size(); ++i) golden.push_back(check_golden_set(f.golden, suites[i], plan.suites[i].seed, ""));
  const std::filesystem::path bundle = certify_bundle_dir(f.out, started);
  const DeviceRun devices(f.devices);
  // Only rank 0 (or this process alone) writes the bundle, so only it checks where and with what.
  std::exception_ptr rank0_error;
  if (devices.writes()) {
    try {
      check_bundle_target(bundle, f.sign_key);
    } catch (const std::exception&) {
      rank0_error = std::current_exception();
    }
  }
  devices.agree_on(rank0_error);
  auto registry = load_registry(options);
  if (devices.writes()) print_unavailable(*registry, options);
  const auto selected = select_backends(*registry, options.backend);
  std::vector<std::string> names;
  for (const auto* b : selected) names.push_back(b->name());
  require_one_backend(names, options.backend);
  const std::string peer_name = resolve_peer(peer, platforms, options.platform, *registry);
  const auto& first_devices = selected.front()->devices();
  BundleInputs inputs = bundle_inputs(plan, loaded, names.front(), f.sign_key,
                                      first_devices.empty() ? "" : first_devices.front().name);
  for (std::size_t i = 0; i < suites.size(); ++i) {
    const PlannedSuite& planned = plan.suites[i];
    RunSettings s = conformance_settings(options, platforms, *registry);
    s.out_dir = bundle / report_dir_of(planned);
    s.seed = planned.seed;
    s.timeout = milliseconds_from_seconds(f.timeout_s);
    s.progress = ProgressMode::kPlain;
    s.repro_suite = planned.suite;
    s.peer = peer_name;
    s.environment = environment_inputs(*registry, s.peer);
    s.devices = devices.choice();
    s.device_mode = f.device_mode;
    s.workers = f.workers;
    s.world = devices.world();
    use_golden_set(golden[i], s);
    if (devices.writes())
      fmt::print("opcert certify: {} of {}: suite {} (seed {})\n", i + 1, suites.size(), planned.suite, planned.seed);
    const int code = run_conformance(run_targets(*registry, selected, s.peer), suites[i], s);
    inputs.suites.push_back({planned, suites[i].path, suites[i].sha256, report_dir_of(planned), code});
    if (code == kExitInterrupted) break;
  }
  inputs.finished_at = now_utc();
  // Rank 0 writes the one bundle, this rank's results in it.
  return devices.share_exit_code(devices.writes() ? seal_bundle(bundle, inputs, suites.size()) : kExitOk);
}

}  // namespace

void add_certify_verb(CLI::App& app, int& exit_code) {
  auto* verb = app.add_subcommand(
      "certify",
      "Certify one backend: run every suite of a certification plan (suites/certify/: basic, full, or a plan file) "
      "and write a bundle a customer can check with `opcert verify`: every report, a manifest (opcert, ABI, the "
      "backend's library and SHA-256, the suites' and the plan's SHA-256, seeds, devices, driver, LibTorch, OS, "
      "compiler, times), a summary, SHA256SUMS over every file and, with --sign-key, an Ed25519 signature.");
  auto options = std::make_shared<CommonOptions>();
  auto flags = std::make_shared<CertifyFlags>();
  auto peer = std::make_shared<PeerOptions>();
  add_common_options(*verb, *options);
  add_peer_options(*verb, *peer, "the alignment figure");
  verb->add_option("--plan", flags->plan, "The certification plan: a name under suites/certify/ or a plan file")
      ->type_name("NAME|FILE")
      ->required();
  verb->add_option("--out", flags->out, "The bundle's directory, new or empty (default: out/certify-<UTC timestamp>)")
      ->type_name("DIR");
  verb->add_option("--sign-key", flags->sign_key, "Sign SHA256SUMS with this Ed25519 private key (PEM)")
      ->type_name("FILE")
      ->check(existing_path());
  verb->add_option("--timeout", flags->timeout_s, "Seconds per case before it is TIMEOUT")
      ->type_name("SECONDS")
      ->check(positive_number("seconds"))
      ->capture_default_str();
  add_devices_flag(*verb, flags->devices);
  add_device_mode_flag(*verb, flags->device_mode);
  add_workers_flag(*verb, flags->workers);
  add_golden_flag(*verb, flags->golden);

  verb->callback([options, flags, peer, &exit_code] { exit_code = certify(*flags, *options, *peer); });
}

}  // namespace opcert
