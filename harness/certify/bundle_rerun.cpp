#include "certify/bundle_rerun.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <variant>

#include "certify/bundle_consistency.h"
#include "check/suite.h"
#include "model/device_tag.h"
#include "model/input_error.h"
#include "reports/report_reader.h"
#include "session/job/repro.h"
#include "session/job/run_paths.h"
#include "util/remove_tree.h"

namespace opcert {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

struct Candidate {
  std::string suite;
  uint64_t seed = 1;
  std::string case_id;
  std::string impl;
  Status recorded = Status::kError;
  std::optional<DeviceTag> device;  // where it was recorded, when the run chose devices
  std::optional<int> rank;
};

// One device of the backend on this machine, as `opcert list --json` lists it.
struct LocalDevice {
  int index = 0;
  std::string uuid;
};

// What a rerun got: the case's status, or why it could not run; and the package the backend's code
// came from in that run (a Python backend's, docs/PYTHON.md), "" for a library that holds it all.
struct Rerun {
  std::variant<Status, std::string> got;
  PackageIdentity package;
};

// Re-runs `c` with this opcert in a fresh directory.
Rerun rerun_case(const Candidate& c, const std::optional<int>& device, const std::string& backend,
                 const std::string& plugin, const std::string& golden, const fs::path& work) {
  const fs::path out = work / fmt::format("{}-{}", std::hash<std::string>{}(c.case_id + c.impl), c.seed);
  std::string cmd = shell_quote(current_executable()) + " run --backend " + shell_quote(backend) + " --suite " +
                    shell_quote(c.suite) + " --seed " + std::to_string(c.seed) + " --filter " +
                    shell_quote("^" + regex_escape(c.case_id) + "$") + " --impl " + shell_quote(c.impl) +
                    " --no-peer --progress plain --out " + shell_quote(out.string());
  if (!plugin.empty()) cmd += " --plugin " + shell_quote(plugin);
  if (device) cmd += " --devices " + std::to_string(*device);
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

// Every result of backend `name` the bundle recorded (but SKIPPED) in a suite whose file here is
// the certified one; a problem for each suite that is not.
std::vector<Candidate> recorded_candidates(const json& m, const fs::path& bundle, const std::string& name,
                                           std::vector<std::string>& problems) {
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
      if (r.backend == name && r.status != Status::kSkipped)
        candidates.push_back({suite, seed, r.case_id, r.impl_key, r.status, r.device, r.rank});
  }
  return candidates;
}

// The backend's devices on this machine, from `opcert list --json` in a child (this process loads
// no backend: it starts the reruns after); nullopt with `why` when they cannot be listed.
std::optional<std::vector<LocalDevice>> local_devices(const std::string& backend, const std::string& plugin,
                                                      const fs::path& work, std::string& why) {
  const fs::path listing = work / "devices.json";
  std::string cmd = shell_quote(current_executable()) + " list --json --backend " + shell_quote(backend);
  if (!plugin.empty()) cmd += " --plugin " + shell_quote(plugin);
  cmd += " > " + shell_quote(listing.string()) + " 2>&1";
  const int status = std::system(cmd.c_str());
  try {
    std::ifstream in(listing);
    const json doc = json::parse(in);
    for (const auto& b : doc.at("backends"))
      if (b.at("name") == backend) {
        std::vector<LocalDevice> devices;
        for (const auto& d : b.at("devices"))
          devices.push_back({d.at("index").get<int>(), d.value("uuid", json(nullptr)).is_string() ? d["uuid"].get<std::string>() : ""});
        return devices;
      }
    why = fmt::format("`opcert list` has no backend '{}' here", backend);
  } catch (const std::exception& e) {
    why = fmt::format("`opcert list` gave no device list (exit status {}; {}); see {}", status, e.what(), listing.string());
  }
  return std::nullopt;
}

// The index here of the device a case was recorded on: the device of the same UUID, or, where its
// backend gave none, of the same index; nullopt when this machine has no such device.
std::optional<int> device_here(const DeviceTag& recorded, const std::vector<LocalDevice>& here) {
  for (const auto& d : here)
    if (recorded.uuid.empty() ? d.index == recorded.index : d.uuid == recorded.uuid) return d.index;
  return std::nullopt;
}

std::string devices_text(const std::vector<LocalDevice>& here) {
  std::string text;
  for (const auto& d : here) text += fmt::format("{}{}: {}", text.empty() ? "" : ", ", d.index, identity_text(d.uuid));
  return text.empty() ? "none" : text;
}

}  // namespace

void rerun_cases(const VerifyOutcome& outcome, const fs::path& bundle, const RerunRequest& request,
                 std::vector<std::string>& problems, std::vector<std::string>& notes, std::vector<std::string>& cannot) {
  const json& m = outcome.manifest;
  const json backend = m.value("backend", json::object());
  const std::string name = backend.value("name", "");
  std::string plugin = request.plugin;
  if (plugin.empty() && backend.contains("library_path") && backend["library_path"].is_string())
    plugin = backend["library_path"].get<std::string>();
  std::vector<Candidate> candidates = recorded_candidates(m, bundle, name, problems);
  if (candidates.empty()) return;
  const uint64_t seed = request.seed.empty() ? std::random_device{}() : std::stoull(request.seed);
  std::mt19937_64 rng(seed);
  std::shuffle(candidates.begin(), candidates.end(), rng);
  candidates.resize(std::min<std::size_t>(candidates.size(), static_cast<std::size_t>(request.count)));
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
  // Cases recorded on a chosen device rerun on that device, found here by its UUID.
  std::optional<std::vector<LocalDevice>> here;
  std::string unlisted;
  if (std::any_of(candidates.begin(), candidates.end(), [](const Candidate& c) { return c.device.has_value(); }))
    here = local_devices(name, plugin, work, unlisted);
  std::map<std::string, int> absent;  // the recorded device, named -> its sampled cases that cannot rerun here
  int reproduced = 0, attempted = 0;
  for (const auto& c : candidates) {
    std::optional<int> device;
    if (c.device) {
      if (here) device = device_here(*c.device, *here);
      if (!device) {
        ++absent[fmt::format("{} of host {}", device_identity_label(c.device, c.rank), c.device->host)];
        continue;
      }
    }
    ++attempted;
    const Rerun rerun = rerun_case(c, device, name, plugin, request.golden, work);
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
  for (const auto& [device, cases] : absent)
    cannot.push_back(fmt::format("{} sampled case(s) were recorded on {}, which backend '{}' does not have here ({}): "
                                 "rerun them on that machine, or choose others with another --rerun-seed",
                                 cases, device, name,
                                 here ? "its devices here: " + devices_text(*here) : unlisted));
  // The reruns' reports and logs stay where one did not reproduce: the problems point into them.
  const bool all_reproduced = reproduced == attempted;
  if (all_reproduced && unlisted.empty()) remove_tree(work);  // else the listing's output stays, named above
  notes.push_back(fmt::format("re-ran {} case(s) chosen with --rerun-seed {}: {} reproduced their verdict{}", attempted,
                              seed, reproduced,
                              all_reproduced ? "" : fmt::format(" (their reports and logs: {})", work.string())));
}

}  // namespace opcert
