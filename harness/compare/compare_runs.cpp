#include "compare/compare_runs.h"

#include <fmt/format.h>

#include <cmath>
#include <map>
#include <set>

#include "compare/rank_test.h"
#include "model/input_error.h"

namespace opcert {
namespace {

using nlohmann::json;

// A result's identity within a run (the seed and device are the run's, checked once).
std::string result_key(const CaseResult& r) {
  return r.case_id + "\n" + r.impl_key + (r.rank ? "\n" + std::to_string(*r.rank) : std::string());
}

std::optional<double> primary_rmse(const CaseResult& r) {
  if (r.metrics.empty() || !std::isfinite(r.metrics.front().rmse)) return std::nullopt;
  return r.metrics.front().rmse;
}

bool passing(Status s) { return s == Status::kPassed; }
bool broken(Status s) { return s != Status::kPassed && s != Status::kSkipped; }

std::set<std::string> peer_backends(const RunReport& run) {
  std::set<std::string> peers;
  for (const auto& b : run.backends)
    if (b.peer) peers.insert(b.name);
  return peers;
}

// new / old, with 0 -> positive as infinite growth and 0 -> 0 as none.
double growth_of(std::optional<double> old_value, std::optional<double> new_value) {
  if (!old_value || !new_value) return 1.0;
  if (*old_value <= 0) return *new_value > 0 ? INFINITY : 1.0;
  return *new_value / *old_value;
}

void compare_statuses(Comparison& c, const RunReport& base, const RunReport& now, const CompareOptions& options) {
  const auto peers = peer_backends(now);
  std::map<std::string, const CaseResult*> before;
  for (const auto& r : base.results) before[result_key(r)] = &r;
  std::set<std::string> seen;
  for (const auto& r : now.results) {
    const std::string key = result_key(r);
    seen.insert(key);
    const auto it = before.find(key);
    const CaseResult* old = it == before.end() ? nullptr : it->second;
    const bool peer = peers.contains(r.backend);
    if (old != nullptr && old->status == r.status) {
      ++c.unchanged_statuses;
    } else {
      StatusChange s{r.case_id, r.impl_key, r.op, r.dtype, peer, std::nullopt, r.status, r.message, false};
      if (old != nullptr) s.base = old->status;
      s.regression = !peer && ((old != nullptr && passing(old->status) && !passing(r.status)) ||
                               (old == nullptr && broken(r.status)));
      c.statuses.push_back(std::move(s));
    }
    if (old == nullptr || !(passing(old->status) || old->status == Status::kMistrusted) ||
        !(passing(r.status) || r.status == Status::kMistrusted))
      continue;
    AlignmentDrift d{r.case_id, r.impl_key, r.op, old->alignment_ratio, r.alignment_ratio, primary_rmse(*old),
                     primary_rmse(r), 1.0, false};
    d.growth = std::max(growth_of(d.base_ratio, d.new_ratio), growth_of(d.base_rmse, d.new_rmse));
    const double shrink = std::min(growth_of(d.base_ratio, d.new_ratio), growth_of(d.base_rmse, d.new_rmse));
    d.beyond = !peer && d.growth > options.max_alignment_growth;
    // A drift worth a line: either figure moved by more than 5%.
    if (d.growth > 1.05 || shrink < 1 / 1.05) c.drifts.push_back(std::move(d));
  }
  for (const auto& r : base.results) {
    if (seen.contains(result_key(r))) continue;
    const bool peer = peer_backends(base).contains(r.backend);
    c.statuses.push_back({r.case_id, r.impl_key, r.op, r.dtype, peer, r.status, std::nullopt,
                          "not in the new run", !peer && passing(r.status)});
  }
}

// The SM clock at the last reading of the record's repetitions.
std::optional<uint32_t> last_sm_clock(const BenchRecord& b) {
  std::optional<uint32_t> clock;
  for (const auto& run : b.runs)
    if (run.sampling)
      for (const auto* r : {&run.sampling->conditions.start, &run.sampling->conditions.end})
        if (*r && (*r)->sm_clock_mhz) clock = (*r)->sm_clock_mhz;
  return clock;
}

std::vector<double> repetition_seconds(const BenchRecord& b) {
  std::vector<double> s;
  for (const auto& run : b.runs)
    if (run.aggregate.empty() && run.error.empty()) s.push_back(run.seconds);
  return s;
}

void compare_timings(Comparison& c, const RunReport& base, const RunReport& now, const CompareOptions& options) {
  std::map<std::string, const BenchRecord*> before;
  for (const auto& b : base.benchmarks) before[b.name] = &b;
  bool untestable = false;
  for (const auto& b : now.benchmarks) {
    TimingChange t;
    t.case_id = b.case_id;
    t.impl_key = b.impl_key;
    t.op = b.op;
    t.peer = b.peer || b.copy_baseline;
    t.new_seconds = b.error.empty() ? b.seconds : std::nullopt;
    t.new_repetitions = repetition_seconds(b);
    t.new_noise = b.noise;
    t.new_peer_ratio = b.collective ? b.collective->ratio_vs_peer : b.speedup_vs_peer;
    if (b.collective) t.new_busbw = b.collective->busbw_gbps;
    t.new_conditions = b.condition_flags;
    t.new_sm_clock_mhz = last_sm_clock(b);
    const auto it = before.find(b.name);
    if (it == before.end()) {
      t.verdict = TimingVerdict::kMissing;
      t.note = "not in the base run";
      c.timings.push_back(std::move(t));
      continue;
    }
    const BenchRecord& old = *it->second;
    t.base_seconds = old.error.empty() ? old.seconds : std::nullopt;
    t.base_repetitions = repetition_seconds(old);
    t.base_noise = old.noise;
    t.base_peer_ratio = old.collective ? old.collective->ratio_vs_peer : old.speedup_vs_peer;
    if (old.collective) t.base_busbw = old.collective->busbw_gbps;
    t.base_conditions = old.condition_flags;
    t.base_sm_clock_mhz = last_sm_clock(old);
    if (t.base_conditions != t.new_conditions) {
      const auto flags = [](const std::vector<std::string>& f) {
        std::string s;
        for (const auto& x : f) s += (s.empty() ? "" : ",") + x;
        return s.empty() ? std::string("none") : s;
      };
      t.note = fmt::format("GPU conditions differ: {} -> {}", flags(t.base_conditions), flags(t.new_conditions));
    }
    if (!t.base_seconds || !t.new_seconds || *t.base_seconds <= 0) {
      t.verdict = TimingVerdict::kMissing;
      t.note = !t.new_seconds ? "not timed in the new run" : "not timed in the base run";
      c.timings.push_back(std::move(t));
      continue;
    }
    t.change = *t.new_seconds / *t.base_seconds - 1.0;
    const double floor = smallest_p_value(t.base_repetitions.size(), t.new_repetitions.size());
    if (floor >= options.alpha) {
      t.verdict = TimingVerdict::kUntestable;
      t.note += (t.note.empty() ? "" : "; ") + fmt::format("{} and {} repetitions: a rank test cannot reach p < {}", t.base_repetitions.size(),
                           t.new_repetitions.size(), options.alpha);
      untestable = true;
    } else {
      t.p_value = mann_whitney_u(t.new_repetitions, t.base_repetitions).p_value;
      const bool significant = *t.p_value < options.alpha;
      if (significant && *t.change > options.max_slowdown) t.verdict = TimingVerdict::kSlower;
      else if (significant && *t.change < -options.max_slowdown) t.verdict = TimingVerdict::kFaster;
    }
    c.timings.push_back(std::move(t));
  }
  std::set<std::string> names;
  for (const auto& b : now.benchmarks) names.insert(b.name);
  for (const auto& b : base.benchmarks)
    if (!names.contains(b.name)) {
      TimingChange t;
      t.case_id = b.case_id;
      t.impl_key = b.impl_key;
      t.op = b.op;
      t.peer = b.peer || b.copy_baseline;
      t.base_seconds = b.seconds;
      t.verdict = TimingVerdict::kMissing;
      t.note = "not in the new run";
      c.timings.push_back(std::move(t));
    }
  if (untestable)
    c.notes.push_back(fmt::format("some rows have too few repetitions for a rank test at p < {} (both runs need "
                                  "--benchmark_repetitions=4 or more): their change is shown, never gated",
                                  options.alpha));
}

// Scalar leaves of a JSON document by dotted path ("gpus[0].name").
void flatten(const json& doc, const std::string& path, std::map<std::string, std::string>& out) {
  if (doc.is_object()) {
    for (const auto& [k, v] : doc.items()) flatten(v, path.empty() ? k : path + "." + k, out);
  } else if (doc.is_array()) {
    for (std::size_t i = 0; i < doc.size(); ++i) flatten(doc[i], fmt::format("{}[{}]", path, i), out);
  } else if (!doc.is_null()) {
    out[path] = doc.is_string() ? doc.get<std::string>() : doc.dump();
  }
}

std::map<std::string, std::string> facts(const RunReport& run) {
  std::map<std::string, std::string> f;
  flatten(run.environment, "", f);
  if (run.bench_settings.is_object()) {
    for (const char* part : {"sampling", "conditions", "cold_l2", "copy_baseline", "collectives"})
      if (run.bench_settings.contains(part)) flatten(run.bench_settings[part], std::string("bench.") + part, f);
  }
  f["peer"] = run.peer;
  f["platform"] = run.platform;
  f["suite.sha256"] = run.suite_sha256;
  f["opcert_version"] = run.opcert_version;
  for (const auto& b : run.backends) f["backends." + b.name + ".version"] = b.version;
  for (const auto& b : run.backends)
    if (!b.sha256.empty()) f["backends." + b.name + ".sha256"] = b.sha256;
  return f;
}

void compare_environments(Comparison& c, const RunReport& base, const RunReport& now) {
  const auto a = facts(base), b = facts(now);
  std::set<std::string> keys;
  for (const auto& [k, v] : a) keys.insert(k);
  for (const auto& [k, v] : b) keys.insert(k);
  for (const auto& k : keys) {
    const auto x = a.find(k), y = b.find(k);
    const std::string before = x == a.end() ? "(none)" : x->second, after = y == b.end() ? "(none)" : y->second;
    if (before != after) c.environment.push_back({k, before, after});
  }
}

}  // namespace

std::string run_device(const RunReport& run) {
  std::string device;
  if (run.environment.is_object() && run.environment.contains("gpus") && run.environment["gpus"].is_array())
    for (const auto& gpu : run.environment["gpus"])
      if (gpu.contains("name") && gpu["name"].is_string())
        device += (device.empty() ? "" : ", ") + gpu["name"].get<std::string>();
  if (device.empty() && run.environment.is_object() && run.environment.contains("cpu") &&
      run.environment["cpu"].is_object())
    device = run.environment["cpu"].value("model", "");
  return device;
}

Comparison compare_runs(const RunReport& base, const RunReport& now, const std::string& base_label,
                        const std::string& new_label, const CompareOptions& options) {
  if (base.seed != now.seed)
    throw InputError(fmt::format("'{}' ran with --seed {}, '{}' with --seed {}: results match by case, "
                                 "implementation, seed and device; compare runs of one seed",
                                 base_label, base.seed, new_label, now.seed));
  const std::string base_device = run_device(base), new_device = run_device(now);
  if (base_device != new_device && !options.across_devices)
    throw InputError(fmt::format("'{}' ran on '{}', '{}' on '{}': results match by device too; add "
                                 "--across-devices to compare them anyway",
                                 base_label, base_device, new_label, new_device));
  Comparison c;
  c.mode = "runs";
  c.base_label = base_label;
  c.new_label = new_label;
  compare_statuses(c, base, now, options);
  compare_timings(c, base, now, options);
  compare_environments(c, base, now);
  if (base_device != new_device)
    c.notes.push_back(fmt::format("different devices ('{}' and '{}'): --across-devices", base_device, new_device));
  apply_gates(c, now, options);
  return c;
}

void apply_gates(Comparison& c, const RunReport& now, const CompareOptions& options) {
  std::set<std::string> on = options.fail_on;
  if (options.min_peer_ratio) on.insert("peer_ratio");
  c.gates.assign(on.begin(), on.end());
  c.failures.clear();
  if (on.contains("status"))
    for (const auto& s : c.statuses)
      if (s.regression)
        c.failures.push_back({"status", s.case_id, s.impl_key,
                              fmt::format("{} -> {}{}", s.base ? std::string(status_name(*s.base)) : "(none)",
                                          s.now ? std::string(status_name(*s.now)) : "(none)",
                                          s.message.empty() ? "" : ": " + s.message)});
  if (on.contains("perf"))
    for (const auto& t : c.timings)
      if (!t.peer && t.verdict == TimingVerdict::kSlower)
        c.failures.push_back({"perf", t.case_id, t.impl_key,
                              fmt::format("{:+.1f}% (p = {:.3g}), over --max-slowdown {:.1f}%", 100 * *t.change,
                                          *t.p_value, 100 * options.max_slowdown)});
  if (on.contains("alignment"))
    for (const auto& d : c.drifts)
      if (d.beyond)
        c.failures.push_back({"alignment", d.case_id, d.impl_key,
                              fmt::format("alignment or RMSE grew {:.3g}x, over --max-alignment-growth {:.3g}",
                                          d.growth, options.max_alignment_growth)});
  if (on.contains("peer_ratio") && options.min_peer_ratio) {
    const auto peers = [&] {
      std::set<std::string> p;
      for (const auto& b : now.backends)
        if (b.peer) p.insert(b.name);
      return p;
    }();
    for (const auto& b : now.benchmarks) {
      if (b.peer || b.copy_baseline || peers.contains(b.backend)) continue;
      const auto ratio = b.collective ? b.collective->ratio_vs_peer : b.speedup_vs_peer;
      if (ratio && *ratio < *options.min_peer_ratio)
        c.failures.push_back({"peer_ratio", b.case_id, b.impl_key,
                              fmt::format("{:.3f}x the peer, under --min-peer-ratio {:.3f}", *ratio,
                                          *options.min_peer_ratio)});
    }
  }
}

std::string verdict_name(TimingVerdict verdict) {
  switch (verdict) {
    case TimingVerdict::kUnchanged: return "unchanged";
    case TimingVerdict::kSlower: return "slower";
    case TimingVerdict::kFaster: return "faster";
    case TimingVerdict::kUntestable: return "untestable";
    case TimingVerdict::kMissing: return "missing";
  }
  return "";
}

}  // namespace opcert
