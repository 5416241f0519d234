#include "certify/certification_bundle.h"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <tuple>

#include "certify/bundle_checksums.h"
#include "certify/bundle_signature.h"
#include "certify/certificate_rule.h"
#include "reports/coverage.h"
#include "reports/json_report_writer.h"
#include "reports/report_reader.h"
#include "reports/report_writer.h"

namespace opcert {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// The devices and software of the machine, as the first report's environment recorded them.
json machine_of(const json& environment) {
  if (!environment.is_object()) return json::object();
  json m = json::object();
  for (const char* key : {"host", "cpu", "gpus", "os", "compiler", "build_type", "libraries", "memory_total_bytes"})
    if (environment.contains(key)) m[key] = environment[key];
  return m;
}

json backend_of(const RunReport& report, const std::string& name) {
  for (const auto& b : report.backends)
    if (b.name == name)
      return {{"name", b.name},
              {"version", b.version},
              {"source", b.source},
              {"library_path", b.library_path.empty() ? json(nullptr) : json(b.library_path)},
              {"sha256", b.sha256.empty() ? json(nullptr) : json(b.sha256)},
              {"package", package_json(b.package)}};
  return {{"name", name}};
}

// The serial number of the GPU of this UUID among the machine's (nvidia-smi's, environment.gpus);
// null where the GPU is not listed or does not report one.
json serial_of(const std::string& uuid, const json& environment) {
  if (uuid.empty() || !environment.is_object() || !environment.contains("gpus") || !environment["gpus"].is_array())
    return nullptr;
  for (const auto& gpu : environment["gpus"])
    if (gpu.is_object() && gpu.value("uuid", json(nullptr)) == json(uuid)) return gpu.value("serial", json(nullptr));
  return nullptr;
}

// Every device the certified backend's results ran on, once each: from their device tags (--devices,
// with the rank under MPI) with the device's identity and its own verdict, else the backend's first
// device on the host of the run.
json devices_of(const std::vector<CaseResult>& results, const BundleInputs& in, const json& environment) {
  std::map<std::tuple<int, std::string, int>, std::size_t> seen;  // rank, host, index -> its place in `devices`
  json devices = json::array();
  bool untagged = false;
  const auto known = [](const std::string& s) { return s.empty() ? json(nullptr) : json(s); };
  for (const auto& r : results) {
    if (!r.device) {
      untagged = true;
      continue;
    }
    const auto [at, added] = seen.try_emplace({r.rank.value_or(0), r.device->host, r.device->index}, devices.size());
    if (added) {
      json d = {{"host", r.device->host},          {"index", r.device->index},
                {"name", r.device->name},          {"uuid", known(r.device->uuid)},
                {"pci_bus_id", known(r.device->pci_bus_id)}, {"serial", serial_of(r.device->uuid, environment)},
                {"results", 0},                    {"failing_results", 0}};
      if (r.rank) d["rank"] = *r.rank;
      devices.push_back(d);
    }
    json& d = devices[at->second];
    d["results"] = d["results"].get<int>() + 1;
    if (in.plan.fail_statuses.contains(r.status)) d["failing_results"] = d["failing_results"].get<int>() + 1;
  }
  for (auto& d : devices) d["verdict"] = d["failing_results"].get<int>() == 0 ? "pass" : "fail";
  if (untagged) {
    const json host = environment.is_object() && environment.contains("host") ? environment["host"] : json(nullptr);
    devices.push_back({{"host", host}, {"index", 0}, {"name", in.first_device_name}});
  }
  return devices;
}

// One (op, dtype) pair of the plan over every suite: its cases, those run, those failing, and why
// none ran (reports/coverage.h) when none did.
struct PlanPair {
  std::string op, dtype;
  int64_t cases = 0, ran = 0, failing = 0;
  std::string missing;
};

void add_coverage(std::vector<PlanPair>& pairs, const RunReport& report, const BundleInputs& in) {
  for (const auto& c : coverage_of(report)) {
    if (c.backend != in.backend) continue;
    for (const auto& p : c.pairs) {
      auto it = std::find_if(pairs.begin(), pairs.end(), [&](const PlanPair& q) { return q.op == p.op && q.dtype == p.dtype; });
      if (it == pairs.end()) it = pairs.insert(pairs.end(), PlanPair{p.op, p.dtype, 0, 0, 0, p.missing});
      else if (it->missing != p.missing) it->missing = it->missing.empty() || p.missing.empty() ? "" : "mixed";
      it->cases += p.cases;
      it->ran += p.ran;
    }
  }
  for (const auto& r : report.results)
    if (r.backend == in.backend && in.plan.fail_statuses.contains(r.status))
      for (auto& p : pairs)
        if (p.op == r.op && p.dtype == r.dtype) ++p.failing;
}

// Why a pair is not certified, "" when it is: run, and none of its results failing.
std::string uncertified_because(const PlanPair& p) {
  if (p.ran == 0) return p.missing.empty() ? "not run" : p.missing;
  return p.failing > 0 ? "failing" : "";
}

}  // namespace

Certificate write_bundle(const fs::path& bundle, const BundleInputs& in) {
  std::vector<SuiteTally> tallies;
  json suites = json::array();
  json environment;
  json backend = {{"name", in.backend}};
  std::string opcert_version, git_commit;
  std::string summary = fmt::format("# Certificate: {} on plan {}\n\n", in.backend, in.plan.name);
  std::map<std::string, std::map<std::string, int>> by_op;  // op -> status -> results
  std::string rows;
  std::vector<CaseResult> certified_results;  // for the devices they ran on
  std::vector<PlanPair> plan_pairs;
  for (const auto& s : in.suites) {
    const RunReport report = read_run_report(bundle / s.report_dir);
    add_coverage(plan_pairs, report, in);
    if (environment.is_null()) {
      environment = report.environment;
      backend = backend_of(report, in.backend);
      opcert_version = report.opcert_version;
      if (report.environment.is_object()) git_commit = report.environment.value("git_commit", "");
    }
    const SuiteTally tally = tally_suite(s.planned, s.exit_code, report.results, in.backend, in.plan.fail_statuses);
    tallies.push_back(tally);
    for (const auto& r : report.results) {
      if (r.backend != in.backend) continue;
      certified_results.push_back(r);
      ++by_op[r.op][std::string(status_name(r.status))];
    }
    suites.push_back({{"suite", s.planned.suite},
                      {"seed", s.planned.seed},
                      {"path", s.suite_path},
                      {"sha256", s.suite_sha256},
                      {"report", s.report_dir + "/report.json"},
                      {"exit_code", s.exit_code},
                      {"complete", report.complete},
                      {"results", tally.results},
                      {"counts", tally.counts},
                      {"failing", tally.failing}});
    rows += summary_row(tally) + "\n";
  }
  Certificate cert = judge_certificate(tallies, in.backend);  // the pair coverage is added below

  // Every op of the plan: what the backend's results were, or that it has no implementation of it.
  json coverage = json::object();
  std::string not_implemented;
  for (const auto& op : in.plan_ops) {
    if (by_op.contains(op)) {
      coverage[op] = by_op[op];
    } else {
      coverage[op] = "not implemented";
      not_implemented += (not_implemented.empty() ? "" : ", ") + op;
    }
  }
  // The plan's (op, dtype) pairs: how many are certified, and why each other one is not.
  json missing_pairs = json::array();
  std::string missing_text;
  for (const auto& p : plan_pairs) {
    const std::string why = uncertified_because(p);
    if (why.empty()) continue;
    missing_pairs.push_back({{"op", p.op}, {"dtype", p.dtype}, {"cases", p.cases}, {"why", why}});
    const std::string phrase = why == "failing" ? fmt::format("{} failing", p.failing)
                               : why == "mixed"  ? "every case skipped"
                                                 : std::string(skip_reason::phrase(why));
    missing_text += fmt::format("{}{} ({})", missing_text.empty() ? "" : ", ", pair_name(p.op, p.dtype), phrase);
  }
  const std::size_t certified_pairs = plan_pairs.size() - missing_pairs.size();
  cert.plan_pairs = plan_pairs.size();
  cert.certified_pairs = certified_pairs;
  fs::copy_file(in.plan.path, bundle / "plan.json", fs::copy_options::overwrite_existing);
  json signing = nullptr;
  if (!in.sign_key.empty())
    signing = {{"algorithm", "ed25519"},
               {"public_key_fingerprint", ed25519_fingerprint(in.sign_key, true)},
               {"signs", kChecksumFile}};
  json fail_statuses = json::array();
  for (const Status st : in.plan.fail_statuses) fail_statuses.push_back(std::string(status_name(st)));
  const json devices = devices_of(certified_results, in, environment);
  const json manifest = {
      {"manifest_format", "1.0"},
      {"kind", "opcert-certificate"},
      {"verdict", verdict_text(cert)},
      {"reason", cert.reason},
      {"backend", backend},
      {"plan", {{"name", in.plan.name}, {"file", "plan.json"}, {"sha256", in.plan.sha256}, {"fail_statuses", fail_statuses}}},
      {"suites", suites},
      {"coverage", coverage},
      {"pair_coverage", {{"certified", certified_pairs}, {"of", plan_pairs.size()}, {"missing", missing_pairs}}},
      {"opcert", {{"version", opcert_version}, {"git_commit", git_commit}, {"abi", in.abi_version}}},
      {"machine", machine_of(environment)},
      {"devices", devices},
      {"command_line", in.command_line},
      {"started_at", in.started_at},
      {"finished_at", in.finished_at},
      {"results", cert.results},
      {"failing_results", cert.failing_results},
      {"signing", signing}};
  write_file_atomically(bundle / kManifestFile, manifest.dump(2) + "\n");
  summary += summary_verdict_line(cert) + "\n\n";
  summary += fmt::format("Backend `{}` {}, opcert {} ({}), ABI {}. Started {}, finished {}.\n\n", in.backend,
                         backend.value("version", std::string()), opcert_version, git_commit, in.abi_version,
                         in.started_at, in.finished_at);
  if (!plan_pairs.empty()) {
    summary += fmt::format("Certified {} of {} op x dtype pairs of the plan", certified_pairs, plan_pairs.size());
    summary += missing_text.empty() ? ".\n\n" : fmt::format("; not certified for: {}.\n\n", missing_text);
  }
  std::string device_list;
  const auto text_or_unknown = [](const json& v) { return v.is_string() ? v.get<std::string>() : std::string("unknown"); };
  for (const auto& d : devices) {
    device_list += fmt::format("{}{}{}: device {} ({}", device_list.empty() ? "" : "; ",
                               d.contains("rank") ? fmt::format("rank {} on ", d["rank"].get<int>()) : "",
                               d["host"].is_string() ? d["host"].get<std::string>() : "this host",
                               d["index"].get<int>(), d["name"].get<std::string>());
    if (d.contains("verdict"))  // a chosen device: its identity and its own verdict
      device_list += fmt::format(", UUID {}, PCI {}, serial {}: {}", text_or_unknown(d["uuid"]),
                                 text_or_unknown(d["pci_bus_id"]), text_or_unknown(d["serial"]),
                                 d["verdict"] == "pass" ? "pass" : fmt::format("**{} failing**", d["failing_results"].get<int>()));
    device_list += ")";
  }
  summary += fmt::format("Devices: {}.\n\n", device_list);
  summary += "| suite | seed | results | statuses | verdict |\n|---|---|---|---|---|\n" + rows;
  if (!not_implemented.empty())
    summary += fmt::format("\nOps of the plan that `{}` does not implement (no result, not certified for them): {}.\n",
                           in.backend, not_implemented);
  summary += "\nEvery file of this bundle is in SHA256SUMS; `opcert verify` checks them";
  summary += in.sign_key.empty() ? ".\n" : ", and the Ed25519 signature SHA256SUMS.sig with the vendor's public key.\n";
  write_file_atomically(bundle / "summary.md", summary);
  write_checksums(bundle);
  if (!in.sign_key.empty())
    write_file_atomically(bundle / kSignatureFile, sign_ed25519(in.sign_key, read_bundle_file(bundle / kChecksumFile)) + "\n");
  return cert;
}

}  // namespace opcert
