#include "dashboard/dashboard_model.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <tuple>

#include "compare/compare_runs.h"
#include "history/run_listing.h"
#include "model/input_error.h"

namespace opcert {
namespace {

using SeriesKey = std::tuple<size_t, std::string, std::string>;  // lineage, case, implementation
using RegressionKey = std::tuple<int64_t, std::string, std::string>;  // run, case, implementation

std::string slug_of(const std::string& text) {
  std::string out;
  for (const char ch : text)
    out += (std::isalnum(static_cast<unsigned char>(ch)) || ch == '.' || ch == '-' || ch == '_') ? ch : '_';
  return out;
}

// A series' case: a collective sweep's rows are one series per message size.
std::string series_case_id(const std::string& case_id, const std::optional<uint64_t>& size_bytes) {
  return size_bytes ? fmt::format("{}@{}B", case_id, *size_bytes) : case_id;
}

// What compare's gates find in `now` against `base`: (case, implementation) -> the failures' lines.
std::map<std::pair<std::string, std::string>, std::vector<std::string>> gate_failures(const RunReport& base,
                                                                                      const RunReport& now,
                                                                                      const std::string& base_label,
                                                                                      const std::string& new_label) {
  const CompareOptions options;  // compare's defaults: status, perf (5%, p < 0.05), alignment (2x)
  Comparison comparison = compare_runs(base, now, base_label, new_label, options);
  apply_gates(comparison, now, options);
  std::map<std::pair<std::string, std::string>, std::vector<std::string>> out;
  for (const GateFailure& f : comparison.failures)
    out[{series_case_id(f.case_id, f.size_bytes), f.impl_key}].push_back(fmt::format("{}: {}", f.gate, f.what));
  return out;
}

// How bad a status is, for a run that measured a series more than once (on several devices or
// ranks): the point shows the worst.
int severity(const std::string& status) {
  if (status.empty()) return 0;
  if (status == "SKIPPED") return 1;
  if (status == "PASSED") return 2;
  return 3;
}

void keep_worst(std::string& shown, const std::string& status) {
  if (severity(status) > severity(shown)) shown = status;
}

SeriesPoint& point_of(Series& s, const StoredRun& run) {
  if (s.points.empty() || s.points.back().run_id != run.id) {
    SeriesPoint p;
    p.run_id = run.id;
    p.started_at = run.started_at;
    p.commit = run.project_commit.empty() ? run.opcert_commit : run.project_commit;
    s.points.push_back(std::move(p));
  }
  return s.points.back();
}

}  // namespace

std::string lineage_key(const StoredRun& run) {
  return fmt::format("{}|{}|{}|{}", run.kind, run.suite, run.platform, stored_run_device(run));
}

DashboardModel gather_dashboard(HistoryStore& store) {
  DashboardModel m;
  m.store = store.describe();
  std::map<std::string, size_t> lineage_index;
  for (const StoredRun& run : store.list({})) {
    // A report this opcert no longer reads (an older report schema major) is left out, said once.
    try {
      m.reports.emplace(run.id, store.report(run.id));
    } catch (const InputError& e) {
      m.notes.push_back(fmt::format("run {} is left out: {}", run.id, e.what()));
      continue;
    }
    m.runs.push_back(run);
    m.peaks.emplace(run.id, store.peaks(run.id));
    const std::string key = lineage_key(run);
    auto [it, fresh] = lineage_index.emplace(key, m.lineages.size());
    if (fresh)
      m.lineages.push_back({key, fmt::format("{} of {} on {}{}", run.kind, run.suite, stored_run_device(run),
                                             run.platform.empty() ? "" : " (platform " + run.platform + ")"),
                            {}});
    m.lineages[it->second].run_ids.push_back(run.id);
  }

  // Regressions: each run against the one before it in its lineage, by compare's gates.
  std::map<RegressionKey, std::vector<std::string>> regressions;
  for (const Lineage& lineage : m.lineages)
    for (size_t i = 1; i < lineage.run_ids.size(); ++i) {
      const int64_t base = lineage.run_ids[i - 1], now = lineage.run_ids[i];
      try {
        for (auto& [key, lines] :
             gate_failures(m.reports.at(base), m.reports.at(now), fmt::format("run {}", base), fmt::format("run {}", now)))
          regressions[{now, key.first, key.second}] = std::move(lines);
      } catch (const InputError& e) {
        m.notes.push_back(fmt::format("run {} was not compared with run {}: {}", now, base, e.what()));
      }
    }

  std::map<SeriesKey, Series> by_key;
  const auto series_of = [&](size_t lineage, const std::string& case_id, const std::string& impl) -> Series& {
    Series& s = by_key[{lineage, case_id, impl}];
    if (s.case_id.empty()) {
      s.lineage = lineage;
      s.case_id = case_id;
      s.impl_key = impl;
    }
    return s;
  };
  for (size_t li = 0; li < m.lineages.size(); ++li)
    for (const int64_t id : m.lineages[li].run_ids) {
      const StoredRun& run = *std::find_if(m.runs.begin(), m.runs.end(), [&](const StoredRun& r) { return r.id == id; });
      const RunReport& report = m.reports.at(id);
      for (const CaseResult& r : report.results) {
        Series& s = series_of(li, r.case_id, r.impl_key);
        s.op = r.op;
        s.backend = r.backend;
        s.dtype = r.dtype;
        s.peer = s.peer || (!report.peer.empty() && r.backend == report.peer);
        SeriesPoint& p = point_of(s, run);
        keep_worst(p.status, std::string(status_name(r.status)));
        p.alignment_ratio = r.alignment_ratio;
        if (!r.metrics.empty()) p.rmse = r.metrics.front().rmse;
      }
      for (const BenchRecord& b : report.benchmarks) {
        if (b.copy_baseline) continue;
        // A collective's rows are one per size: each size is its own series.
        const std::string case_id = series_case_id(
            b.case_id, b.collective ? std::optional<uint64_t>(b.collective->size_bytes) : std::nullopt);
        Series& s = series_of(li, case_id, b.impl_key);
        s.op = b.op;
        s.backend = b.backend;
        s.peer = s.peer || b.peer;
        SeriesPoint& p = point_of(s, run);
        if (b.check) keep_worst(p.status, std::string(status_name(*b.check)));
        if (!b.error.empty() && !b.check) keep_worst(p.status, "ERROR");
        p.seconds = b.seconds;
        p.repetitions = repetition_seconds(b.runs);
        if (!p.repetitions.empty()) {
          p.seconds_min = *std::min_element(p.repetitions.begin(), p.repetitions.end());
          p.seconds_max = *std::max_element(p.repetitions.begin(), p.repetitions.end());
        }
        if (b.collective) {
          p.throughput = b.collective->busbw_gbps;
          s.throughput_unit = "GB/s busbw";
        } else if (!b.compute_dtype.empty() && b.tflops) {
          p.throughput = b.tflops;
          s.throughput_unit = "TFLOP/s";
        } else if (b.gbps) {
          p.throughput = b.gbps;
          s.throughput_unit = "GB/s";
        }
        p.speedup_vs_peer = b.speedup_vs_peer;
      }
    }
  std::set<std::string> slugs;
  for (auto& [key, s] : by_key) {
    for (SeriesPoint& p : s.points)
      if (const auto it = regressions.find({p.run_id, s.case_id, s.impl_key}); it != regressions.end()) {
        p.regressions = it->second;
        ++s.regressions;
      }
    s.regressed_last = !s.points.empty() && !s.points.back().regressions.empty() &&
                       s.points.back().run_id == m.lineages[s.lineage].run_ids.back();
    std::string slug = fmt::format("L{}-{}--{}", s.lineage + 1, slug_of(s.case_id), slug_of(s.impl_key));
    while (!slugs.insert(slug).second) slug += "_";
    s.slug = slug;
    m.series.push_back(std::move(s));
  }
  std::stable_sort(m.series.begin(), m.series.end(), [](const Series& a, const Series& b) {
    return std::tie(a.lineage, a.op, a.case_id, a.impl_key) < std::tie(b.lineage, b.op, b.case_id, b.impl_key);
  });
  return m;
}

}  // namespace opcert
