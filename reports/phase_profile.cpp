#include "reports/phase_profile.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <utility>

#include "reports/number_format.h"
#include "reports/run_summary.h"
#include "util/duration.h"

namespace opcert {
namespace {

// The rows of a profile, in order, with how each takes its seconds from a result's phases.
struct PhaseRow {
  const char* name;
  double (*seconds)(const PhaseTimes&);
};
constexpr PhaseRow kRows[] = {
    {"generate", [](const PhaseTimes& p) { return p.generate; }},
    {"copy", [](const PhaseTimes& p) { return p.copy; }},
    {"launch", [](const PhaseTimes& p) { return p.launch; }},
    {"reference", [](const PhaseTimes& p) { return p.reference; }},
    {"check", [](const PhaseTimes& p) { return p.check; }},
    {"other", [](const PhaseTimes& p) { return std::max(0.0, p.worker - p.phase_sum()); }},
    {"startup", [](const PhaseTimes& p) { return p.startup; }},
    {"ipc", [](const PhaseTimes& p) { return p.ipc; }},
};

double share(double part, double whole) { return whole > 0.0 ? 100.0 * part / whole : 0.0; }

std::string duration_text(double seconds) { return seconds > 0.0 ? format_duration(seconds) : "0 s"; }

// The case id, with what tells its results apart: the implementation where the backend ran the
// case on several, the rank (collectives, runs across ranks) and the device (--devices).
std::string case_label(const CaseResult& r, bool several_impls) {
  std::string label = several_impls ? r.case_id + " [" + r.impl_key + "]" : r.case_id;
  if (r.rank) label += fmt::format(" (rank {})", *r.rank);
  if (r.device) label += fmt::format(" (device {})", r.device->index);
  return label;
}

std::string slowest_text(const std::vector<SlowCase>& slowest) {
  std::string text;
  for (const auto& s : slowest) {
    if (s.seconds <= 0.0) break;
    text += fmt::format("{}{} {}", text.empty() ? "" : ", ", s.label, duration_text(s.seconds));
  }
  return text;
}

std::string escaped_cell(const std::string& text) {
  std::string out;
  for (const char ch : text) {
    if (ch == '|') out += '\\';
    out += ch;
  }
  return out;
}

}  // namespace

std::vector<BackendProfile> phase_profile(const RunReport& report, std::size_t slowest) {
  std::vector<BackendProfile> out;
  for (const auto& summary : summarize_results(report)) {
    std::vector<const CaseResult*> timed;
    std::map<std::string, std::set<std::string>> impls_per_case;  // several: the label names the implementation
    BackendProfile p;
    p.name = summary_name(summary);
    for (const auto& r : report.results) {
      if (r.backend != summary.backend) continue;
      impls_per_case[r.case_id].insert(r.impl_key);
      if (r.phases) timed.push_back(&r);
      else ++p.untimed;
    }
    p.timed = timed.size();
    if (p.timed + p.untimed == 0) continue;
    for (const CaseResult* r : timed) p.job_seconds += r->phases->worker + r->phases->startup + r->phases->ipc;
    for (const auto& row : kRows) {
      PhaseLine line{row.name, 0.0, {}};
      std::vector<std::pair<double, const CaseResult*>> all;
      for (const CaseResult* r : timed) {
        const double s = row.seconds(*r->phases);
        line.seconds += s;
        all.emplace_back(s, r);
      }
      const std::size_t n = std::min(slowest, all.size());
      std::partial_sort(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(n), all.end(),
                        [](const auto& a, const auto& b) { return a.first > b.first; });
      for (std::size_t i = 0; i < n; ++i) {
        const CaseResult& r = *all[i].second;
        line.slowest.push_back({case_label(r, impls_per_case[r.case_id].size() > 1), all[i].first});
      }
      p.lines.push_back(std::move(line));
    }
    out.push_back(std::move(p));
  }
  return out;
}

std::string profile_text(const RunReport& report) {
  const auto profiles = phase_profile(report);
  if (std::none_of(profiles.begin(), profiles.end(), [](const auto& p) { return p.timed > 0; })) return "";
  std::string out = "\nprofile (each phase's time summed over the jobs, its share of the backend's job time, its slowest cases):\n";
  for (const auto& p : profiles) {
    out += fmt::format("  {}: {} job(s), {}", p.name, p.timed, duration_text(p.job_seconds));
    if (p.untimed > 0) out += fmt::format("; {} result(s) without phases (crashed, timed out)", p.untimed);
    out += "\n";
    if (p.timed == 0) continue;
    for (const auto& line : p.lines) {
      const std::string slowest = slowest_text(line.slowest);
      out += fmt::format("    {:<9} {:>9} {:>6.1f}%{}\n", line.phase, duration_text(line.seconds),
                         share(line.seconds, p.job_seconds), slowest.empty() ? "" : "  " + slowest);
    }
  }
  return out;
}

std::string profile_markdown(const RunReport& report) {
  const auto profiles = phase_profile(report);
  if (std::none_of(profiles.begin(), profiles.end(), [](const auto& p) { return p.timed > 0; })) return "";
  std::string md =
      "\n## Profile\n\nWhere each backend's job time went: each phase summed over its jobs, its share of the "
      "backend's job time, and its slowest cases (docs/PERFORMANCE.md, Harness).\n\n"
      "| backend | phase | time | share | slowest cases |\n|---|---|---:|---:|---|\n";
  for (const auto& p : profiles) {
    if (p.timed == 0) continue;
    for (const auto& line : p.lines)
      md += fmt::format("| {} | {} | {} | {:.1f}% | {} |\n", escaped_cell(p.name), line.phase,
                        duration_text(line.seconds), share(line.seconds, p.job_seconds),
                        escaped_cell(slowest_text(line.slowest)));
  }
  return md;
}

}  // namespace opcert
