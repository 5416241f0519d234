// `opcert verify` (docs/CERTIFY.md): checks a certification bundle: every checksum, that its files
// agree with each other, the signature against the vendor's public key, that a plugin library is
// the certified one, and with --rerun that cases chosen at random from results.jsonl reproduce their
// recorded verdicts on this machine. Exit 0 valid, 1 invalid (each problem named), 2 unusable input.
#include <fmt/format.h>

#include <limits>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <random>
#include <set>
#include <variant>

#include "certify/bundle_consistency.h"
#include "certify/bundle_verifier.h"
#include "check/suite.h"
#include "cli/cli_context.h"
#include "cli/flag_checks.h"
#include "cli/verbs.h"
#include "model/exit_codes.h"
#include "model/input_error.h"
#include "reports/report_reader.h"
#include "session/repro.h"
#include "session/run_paths.h"

namespace opcert {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

struct VerifyFlags {
  std::string bundle;
  std::string public_key;
  std::string plugin;
  int rerun = 0;
  std::string rerun_seed;
  std::string golden;  // reruns judge against this golden set (a machine without LibTorch)
};

struct Candidate {
  std::string suite;
  uint64_t seed = 1;
  std::string case_id;
  std::string impl;
  Status recorded = Status::kError;
};

// What a rerun got: the case's status, or why it could not run; and the package the backend's code
// came from in that run (a Python backend's, docs/PYTHON.md), "" for a library that holds it all.
struct Rerun {
  std::variant<Status, std::string> got;
  PackageIdentity package;
};

// Re-runs `c` with this opcert in a fresh directory.
Rerun rerun_case(const Candidate& c, const std::string& backend, const std::string& plugin, const std::string& golden,
                 const fs::path& work) {
  const fs::path out = work / fmt::format("{}-{}", std::hash<std::string>{}(c.case_id + c.impl), c.seed);
  std::string cmd = shell_quote(current_executable()) + " run --backend " + shell_quote(backend) + " --suite " +
                    shell_quote(c.suite) + " --seed " + std::to_string(c.seed) + " --filter " +
                    shell_quote("^" + regex_escape(c.case_id) + "$") + " --impl " + shell_quote(c.impl) +
                    " --no-peer --progress plain --out " + shell_quote(out.string());
  if (!plugin.empty()) cmd += " --plugin " + shell_quote(plugin);
  if (!golden.empty()) cmd += " --golden " + shell_quote(fs::absolute(golden).string());
  const fs::path log = out.string() + ".log";
  cmd += " > " + shell_quote(log.string()) + " 2>&1";
  const int status = std::system(cmd.c_str());
  if (status == -1) return {std::string("could not start opcert")};
  Rerun rerun{std::string("the rerun has no result for it")};
  try {
    const RunReport report = read_run_report(out);
    for (const auto& b : report.backends)
      if (b.name == backend) rerun.package = b.package;
    for (const auto& r : report.results)
      if (r.case_id == c.case_id && r.impl_key == c.impl) rerun.got = r.status;
  } catch (const std::exception& e) {
    rerun.got = fmt::format("no report ({}); see {}", e.what(), log.string());
  }
  return rerun;
}

void rerun(const VerifyOutcome& outcome, const fs::path& bundle, const VerifyFlags& flags, std::vector<std::string>& problems,
           std::vector<std::string>& notes) {
  const json& m = outcome.manifest;
  const json backend = m.value("backend", json::object());
  const std::string name = backend.value("name", "");
  std::string plugin = flags.plugin;
  if (plugin.empty() && backend.contains("library_path") && backend["library_path"].is_string())
    plugin = backend["library_path"].get<std::string>();
  std::vector<Candidate> candidates;
  for (const auto& s : m.value("suites", json::array())) {
    const std::string suite = s.value("suite", "");
    const uint64_t seed = s.value("seed", uint64_t{1});
    if (load_suite(suite, seed).sha256 != s.value("sha256", "")) {
      problems.push_back(fmt::format("suite {}: its file here differs from the certified one (SHA-256 {}): its cases "
                                     "cannot be re-run as certified",
                                     suite, s.value("sha256", "")));
      continue;
    }
    // results.jsonl is the record of the run (each case written as it finished); the bundle's other
    // files were checked against it.
    for (const auto& r : recorded_results(bundle, s))
      if (r.backend == name && r.status != Status::kSkipped) candidates.push_back({suite, seed, r.case_id, r.impl_key, r.status});
  }
  if (candidates.empty()) return;
  const uint64_t seed = flags.rerun_seed.empty() ? std::random_device{}() : std::stoull(flags.rerun_seed);
  std::mt19937_64 rng(seed);
  std::shuffle(candidates.begin(), candidates.end(), rng);
  candidates.resize(std::min<std::size_t>(candidates.size(), static_cast<std::size_t>(flags.rerun)));
  // A folder of this verify's own: two verifies with the same seed (two CI jobs, two tests at once)
  // must not share one, nor remove the other's.
  fs::path work;
  try {
    work = make_private_temp_dir(fmt::format("opcert-verify-{}-", seed));
  } catch (const std::exception& e) {
    throw InputError(fmt::format("verify --rerun: no folder for the reruns: {}; set TMPDIR to a writable folder", e.what()));
  }
  // A Python backend's code is its package, not the bridge library: the package that reran must be
  // the certified one, as --plugin's library must be.
  const json package = backend.value("package", json(nullptr));
  const std::string certified_package = package.is_object() ? package.value("sha256", "") : "";
  std::set<std::string> other_packages;
  int reproduced = 0;
  for (const auto& c : candidates) {
    const Rerun rerun = rerun_case(c, name, plugin, flags.golden, work);
    if (!certified_package.empty() && !rerun.package.empty() && rerun.package.sha256 != certified_package &&
        other_packages.insert(rerun.package.sha256).second)
      problems.push_back(fmt::format("the package that reran ({} {}, SHA-256 {}) is not the certified one ({} {}, "
                                     "SHA-256 {})",
                                     rerun.package.name, rerun.package.version, rerun.package.sha256,
                                     package.value("name", "?"), package.value("version", "?"), certified_package));
    const auto& got = rerun.got;
    if (const auto* status = std::get_if<Status>(&got); status && *status == c.recorded) {
      ++reproduced;
      fmt::print("  rerun {} {} (suite {}, seed {}): {} as recorded\n", c.case_id, c.impl, c.suite, c.seed,
                 status_name(*status));
    } else {
      problems.push_back(fmt::format("rerun of {} {} (suite {}, seed {}): recorded {}, got {}", c.case_id, c.impl,
                                     c.suite, c.seed, status_name(c.recorded),
                                     status ? std::string(status_name(*status)) : std::get<std::string>(got)));
    }
  }
  // The reruns' reports and logs stay where one did not reproduce: the problems point into them.
  const bool all_reproduced = reproduced == static_cast<int>(candidates.size());
  if (all_reproduced) fs::remove_all(work);
  notes.push_back(fmt::format("re-ran {} case(s) chosen with --rerun-seed {}: {} reproduced their verdict{}",
                              candidates.size(), seed, reproduced,
                              all_reproduced ? "" : fmt::format(" (their reports and logs: {})", work.string())));
}

}  // namespace

void add_verify_verb(CLI::App& app, int& exit_code) {
  auto* verb = app.add_subcommand(
      "verify",
      "Check a certification bundle: every file against SHA256SUMS, that its files agree on every result and the "
      "verdict, the Ed25519 signature against --pubkey, that "
      "--plugin is the certified library, and with --rerun N that N cases chosen at random reproduce their verdicts "
      "here. Exit 0 valid, 1 invalid (each problem named), 2 unusable.");
  auto flags = std::make_shared<VerifyFlags>();
  verb->add_option("bundle", flags->bundle, "The bundle's directory")->required()->type_name("BUNDLE")->check(existing_path());
  verb->add_option("--pubkey", flags->public_key, "The vendor's Ed25519 public key (PEM) the bundle must be signed with")
      ->type_name("FILE")
      ->check(existing_path());
  verb->add_option("--plugin", flags->plugin, "A plugin library that must be the certified one (and reruns load)")
      ->type_name("LIB");
  verb->add_option("--rerun", flags->rerun, "Re-run this many of the certified backend's cases, chosen at random")
      ->type_name("N")
      ->check(whole_number(0, std::numeric_limits<int>::max()));
  verb->add_option("--golden", flags->golden,
                   "Reruns judge against this golden set (`opcert golden export`): on a machine without LibTorch")
      ->type_name("DIR")
      ->check(existing_path());
  verb->add_option("--rerun-seed", flags->rerun_seed, "Choose them with this seed (default: a random one, printed)")
      ->type_name("SEED")
      ->check(whole_number());

  verb->callback([flags, &exit_code] {
    if (!flags->public_key.empty() && !fs::is_regular_file(flags->public_key))
      throw InputError(fmt::format("--pubkey '{}': no such file", flags->public_key));
    const fs::path bundle(flags->bundle);
    const VerifyOutcome outcome = verify_bundle(bundle, {flags->public_key, flags->plugin});
    std::vector<std::string> problems = outcome.problems, notes = outcome.notes;
    if (flags->rerun > 0) {
      if (!problems.empty())
        notes.push_back("no case re-run: the bundle is already invalid");
      else
        rerun(outcome, bundle, *flags, problems, notes);
    }
    const json& m = outcome.manifest;
    if (m.is_object())
      fmt::print("bundle: {} {} on plan {} ({} results), opcert {}\n", m.value("backend", json::object()).value("name", "?"),
                 m.value("verdict", "?"), m.value("plan", json::object()).value("name", "?"), m.value("results", 0),
                 m.value("opcert", json::object()).value("version", "?"));
    for (const auto& n : notes) fmt::print("note: {}\n", n);
    for (const auto& p : problems) fmt::print("INVALID: {}\n", p);
    const std::string unsigned_note =
        outcome.integrity_only.empty() ? "" : fmt::format("integrity only: {}", outcome.integrity_only);
    fmt::print("{}: {}\n", bundle.string(),
               problems.empty() ? (unsigned_note.empty() ? "valid" : fmt::format("valid ({})", unsigned_note))
                                : fmt::format("invalid ({} problem(s){})", problems.size(),
                                              unsigned_note.empty() ? "" : "; " + unsigned_note));
    exit_code = problems.empty() ? kExitOk : kExitCheckFailed;
  });
}

}  // namespace opcert
