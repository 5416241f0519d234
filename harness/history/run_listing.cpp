#include "history/run_listing.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "model/case_result_json.h"
#include "reports/summary_table.h"

namespace opcert {
namespace {

using nlohmann::json;

bool failed(Status s) { return s != Status::kPassed && s != Status::kSkipped; }

// The geometric mean of the non-peer rows' speedups over the peer, and how many there were.
std::pair<std::optional<double>, int> geomean_speedup(const RunReport& report) {
  double log_sum = 0.0;
  int n = 0;
  for (const BenchRecord& b : report.benchmarks)
    if (!b.peer && !b.copy_baseline && b.speedup_vs_peer && *b.speedup_vs_peer > 0) {
      log_sum += std::log(*b.speedup_vs_peer);
      ++n;
    }
  if (n == 0) return {std::nullopt, 0};
  return {std::exp(log_sum / n), n};
}

}  // namespace

std::string short_commit(const std::string& commit) { return commit.substr(0, std::min<size_t>(commit.size(), 12)); }

std::string stored_run_device(const StoredRun& run) { return run.devices.empty() ? run.cpu_model : run.devices; }

std::string runs_table(const std::vector<StoredRun>& runs) {
  if (runs.empty()) return "no runs\n";
  std::vector<std::vector<std::string>> rows = {
      {"id", "started", "kind", "suite", "platform", "device", "passed", "failed", "skipped", "bench", "exit", "commit"}};
  for (const StoredRun& r : runs)
    rows.push_back({std::to_string(r.id), r.started_at + (r.complete ? "" : " (incomplete)"), r.kind, r.suite,
                    r.platform.empty() ? "-" : r.platform, stored_run_device(r), std::to_string(r.passed),
                    std::to_string(r.failed), std::to_string(r.skipped), std::to_string(r.benchmarks),
                    std::to_string(r.exit_code),
                    short_commit(r.project_commit.empty() ? r.opcert_commit : r.project_commit)});
  std::vector<size_t> widths(rows[0].size(), 0);
  for (const auto& row : rows)
    for (size_t c = 0; c < row.size(); ++c) widths[c] = std::max(widths[c], row[c].size());
  std::string out;
  for (const auto& row : rows) {
    std::string line;
    for (size_t c = 0; c < row.size(); ++c) line += fmt::format("{:<{}}", row[c], c + 1 < row.size() ? widths[c] + 2 : 0);
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  }
  return out;
}

json stored_run_json(const StoredRun& r) {
  return {{"id", r.id},
          {"kind", r.kind},
          {"started_at", r.started_at},
          {"finished_at", r.finished_at},
          {"added_at", r.added_at},
          {"complete", r.complete},
          {"exit_code", r.exit_code},
          {"opcert_version", r.opcert_version},
          {"opcert_commit", r.opcert_commit},
          {"project_commit", r.project_commit},
          {"host", r.host},
          {"cpu_model", r.cpu_model},
          {"devices", r.devices},
          {"driver_version", r.driver_version},
          {"libraries", r.libraries},
          {"platform", r.platform},
          {"suite", r.suite},
          {"suite_sha256", r.suite_sha256},
          {"seed", r.seed},
          {"peer", r.peer},
          {"command_line", r.command_line},
          {"source_dir", r.source_dir},
          {"counts", {{"results", r.results}, {"passed", r.passed}, {"failed", r.failed}, {"skipped", r.skipped},
                      {"benchmarks", r.benchmarks}}}};
}

std::string run_details_text(const StoredRun& run, const RunReport& report) {
  std::string out = fmt::format("run {}: {} of suite {} (seed {}), {} to {}{}\n", run.id, run.kind, run.suite, run.seed,
                                run.started_at, run.finished_at, run.complete ? "" : ", incomplete");
  out += fmt::format("  host {}, {}{}\n", run.host, stored_run_device(run),
                     run.driver_version.empty() ? "" : ", driver " + run.driver_version);
  out += fmt::format("  opcert {} ({}){}\n", run.opcert_version, run.opcert_commit,
                     run.project_commit.empty() ? "" : ", project commit " + run.project_commit);
  if (!run.platform.empty() || !run.peer.empty())
    out += fmt::format("  platform {}, peer {}\n", run.platform.empty() ? "-" : run.platform,
                       run.peer.empty() ? "-" : run.peer);
  out += fmt::format("  files: {}\n  exit code {}\n\n", run.source_dir, run.exit_code);
  if (!report.results.empty()) out += console_summary_table(report) + "\n";
  int shown = 0;
  for (const CaseResult& r : report.results)
    if (failed(r.status)) {
      if (shown++ == 0) out += "did not pass:\n";
      out += fmt::format("  {} {} {}: {}\n    {}\n", status_name(r.status), r.case_id, r.impl_key, r.message, r.repro);
    }
  if (!report.benchmarks.empty()) {
    const auto [geomean, n] = geomean_speedup(report);
    out += fmt::format("{} benchmarks", report.benchmarks.size());
    if (geomean) out += fmt::format("; {} timed against the peer, geometric mean speedup {:.3f}x", n, *geomean);
    out += "\n";
  }
  return out;
}

json run_details_json(const StoredRun& run, const RunReport& report) {
  json out = stored_run_json(run);
  json failures = json::array();
  for (const CaseResult& r : report.results)
    if (failed(r.status))
      failures.push_back({{"case", r.case_id}, {"impl", r.impl_key}, {"status", status_name(r.status)},
                          {"message", r.message}, {"repro", r.repro}});
  out["failures"] = std::move(failures);
  json backends = json::array();
  for (const BackendRecord& b : report.backends)
    backends.push_back({{"name", b.name}, {"version", b.version}, {"source", b.source}, {"peer", b.peer}});
  out["backends"] = std::move(backends);
  const auto [geomean, n] = geomean_speedup(report);
  out["geomean_speedup_vs_peer"] = geomean ? json(*geomean) : json(nullptr);
  out["environment"] = report.environment;
  return out;
}

}  // namespace opcert
