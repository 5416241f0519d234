// `opcert certify` (docs/CERTIFY.md): runs every suite of a certification plan on one backend, as
// `opcert run` would, into one bundle, and seals it (manifest, summary, SHA256SUMS, an optional
// Ed25519 signature). Exit 0 certified, 1 not certified.
#include <fmt/format.h>
#include <opcert/backend_abi.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <set>

#include "certify/bundle_signature.h"
#include "certify/certification_bundle.h"
#include "certify/certification_plan.h"
#include "check/suite.h"
#include "cli/cli_context.h"
#include "cli/device_flags.h"
#include "cli/flag_checks.h"
#include "cli/golden_flags.h"
#include "cli/run_settings_builder.h"
#include "cli/verbs.h"
#include "model/exit_codes.h"
#include "model/input_error.h"
#include "reports/run_report.h"
#include "run/conformance_runner.h"
#include "session/run_header.h"
#include "session/run_paths.h"

namespace opcert {
namespace {

namespace fs = std::filesystem;

struct CertifyFlags {
  std::string plan;
  std::string out;
  std::string sign_key;
  double timeout_s = 60.0;
  std::string golden;
  std::string devices;  // --devices, "" when not given
};

// One folder per planned run: "reports/sweeps-gemm.seed1".
std::string report_dir_of(const PlannedSuite& s) { return "reports/" + suite_folder_name(s.suite, s.seed); }

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
  add_golden_flag(*verb, flags->golden);

  verb->callback([options, flags, peer, &exit_code] {
    const auto started = std::chrono::system_clock::now();
    if (!flags->devices.empty()) (void)parse_device_choice(flags->devices);  // bad usage before anything loads
    const CertificationPlan plan = load_certification_plan(flags->plan);
    const PlatformCatalog platforms = load_platform_catalog(*options);
    std::vector<Suite> suites;
    for (const auto& planned : plan.suites) suites.push_back(load_suite(planned.suite, planned.seed));
    std::vector<std::optional<GoldenUse>> golden;  // checked for every suite before hours of runs
    for (std::size_t i = 0; i < suites.size(); ++i)
      golden.push_back(check_golden_set(flags->golden, suites[i], plan.suites[i].seed, ""));
    std::set<std::string> plan_ops;
    for (const auto& suite : suites)
      for (const auto& c : suite.cases) plan_ops.insert(c.op);
    const fs::path default_dir = default_out_dir(started);
    const fs::path bundle =
        flags->out.empty() ? default_dir.parent_path() / ("certify-" + default_dir.filename().string()) : fs::path(flags->out);
    const DeviceRun devices(flags->devices);
    // Only rank 0 (or this process alone) writes the bundle, so only it checks where and with what.
    std::exception_ptr rank0_error;
    if (devices.writes()) {
      try {
        if (fs::exists(bundle) && !(fs::is_directory(bundle) && fs::is_empty(bundle)))
          throw InputError(fmt::format("--out '{}' exists and is not empty: a bundle's checksums cover every file in "
                                       "it; give a new directory",
                                       bundle.string()));
        if (!flags->sign_key.empty()) (void)ed25519_fingerprint(flags->sign_key, true);  // a bad key before hours of runs
      } catch (const std::exception&) {
        rank0_error = std::current_exception();
      }
    }
    devices.agree_on(rank0_error);
    auto registry = load_registry(*options);
    if (devices.writes()) print_unavailable(*registry, *options);
    const auto selected = select_backends(*registry, options->backend);
    if (selected.size() != 1) {
      std::string names;
      for (const auto* b : selected) names += (names.empty() ? "" : ", ") + b->name();
      throw InputError(fmt::format("--backend '{}' selects {} backends ({}): a certificate is of one backend; name it",
                                   options->backend, selected.size(), names));
    }
    const std::string certified = selected.front()->name();
    const std::string peer_name = resolve_peer(*peer, platforms, options->platform, *registry);

    BundleInputs inputs;
    inputs.plan = plan;
    inputs.backend = certified;
    inputs.sign_key = flags->sign_key;
    inputs.plan_ops = plan_ops;
    inputs.started_at = now_utc();
    inputs.command_line = current_command_line();
    inputs.abi_version = fmt::format("{}.{}", OPCERT_ABI_VERSION_MAJOR, OPCERT_ABI_VERSION_MINOR);
    if (!selected.front()->devices().empty()) inputs.first_device_name = selected.front()->devices().front().name;
    for (std::size_t i = 0; i < suites.size(); ++i) {
      const PlannedSuite& planned = plan.suites[i];
      const std::string report_dir = report_dir_of(planned);
      RunSettings s = conformance_settings(*options, platforms, *registry);
      s.out_dir = bundle / report_dir;
      s.seed = planned.seed;
      s.timeout = std::chrono::milliseconds(static_cast<int64_t>(std::ceil(flags->timeout_s * 1000.0)));
      s.progress = ProgressMode::kPlain;
      s.repro_suite = planned.suite;
      s.peer = peer_name;
      s.environment = environment_inputs(*registry, s.peer);
      s.devices = devices.choice();
      s.world = devices.world();
      use_golden_set(golden[i], s);
      if (devices.writes())
        fmt::print("opcert certify: {} of {}: suite {} (seed {})\n", i + 1, suites.size(), planned.suite, planned.seed);
      const int code = run_conformance(run_targets(*registry, selected, s.peer), suites[i], s);
      inputs.suites.push_back({planned, suites[i].path, suites[i].sha256, report_dir, code});
      if (code == kExitInterrupted) break;
    }
    inputs.finished_at = now_utc();
    if (!devices.writes()) {  // rank 0 writes the one bundle, this rank's results in it
      exit_code = devices.share_exit_code(kExitOk);
      return;
    }
    const Certificate cert = write_bundle(bundle, inputs);
    fmt::print("opcert certify: {} {} on plan {}: {} results{}; certified {} of {} op x dtype pairs of the plan; "
               "bundle in {}\n",
               certified, cert.certified ? "CERTIFIED" : "NOT CERTIFIED", plan.name, cert.results,
               cert.reason.empty() ? "" : " (" + cert.reason + ")", cert.certified_pairs, cert.plan_pairs,
               bundle.string());
    exit_code = devices.share_exit_code(inputs.suites.size() < suites.size() ? kExitInterrupted
                                        : cert.certified                  ? kExitOk
                                                                          : kExitCheckFailed);
  });
}

}  // namespace opcert
