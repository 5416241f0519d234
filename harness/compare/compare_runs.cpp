#include "compare/compare_runs.h"

#include <fmt/format.h>

#include <cmath>
#include <map>
#include <set>

#include "compare/rank_test.h"
#include "model/input_error.h"
#include "reports/json_report_writer.h"

namespace opcert {
namespace {

using nlohmann::json;

// A result's identity within a run (the seed and platform are the run's, checked once); a run with
// --devices --device-mode each has one per device, matched device by device (`placed`). A run of
// one result per case (spread over devices and ranks, or on one) matches by case, wherever it ran.
std::string result_key(const CaseResult& r, bool placed) {
  if (!placed) return r.case_id + "\n" + r.impl_key;
  return r.case_id + "\n" + r.impl_key + (r.rank ? "\n" + std::to_string(*r.rank) : std::string()) +
         (r.device ? "\ndevice " + std::to_string(r.device->index) : std::string());
}

// Whether either run holds a case (of an implementation) more than once: results are then told
// apart by rank and device.
bool placed_results(const RunReport& base, const RunReport& now) {
  for (const RunReport* run : {&base, &now}) {
    std::set<std::string> seen;
    for (const auto& r : run->results)
      if (!seen.insert(result_key(r, false)).second) return true;
  }
  return false;
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
  const bool placed = placed_results(base, now);
  std::map<std::string, const CaseResult*> before;
  for (const auto& r : base.results) before[result_key(r, placed)] = &r;
  std::set<std::string> seen;
  for (const auto& r : now.results) {
    const std::string key = result_key(r, placed);
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
  const auto base_peers = peer_backends(base);
  for (const auto& r : base.results) {
    if (seen.contains(result_key(r, placed))) continue;
    const bool peer = base_peers.contains(r.backend);
    c.statuses.push_back({r.case_id, r.impl_key, r.op, r.dtype, peer, r.status, std::nullopt,
                          "not in the new run", !peer && passing(r.status)});
  }
}

// A run's side of a benchmark row.
TimingSide side_of(const BenchRecord& b) {
  TimingSide side;
  side.seconds = b.error.empty() ? b.seconds : std::nullopt;
  side.repetitions = repetition_seconds(b.runs);
  side.noise = b.noise;
  side.peer_ratio = b.collective ? b.collective->ratio_vs_peer : b.speedup_vs_peer;
  if (b.collective) side.busbw = b.collective->busbw_gbps;
  side.conditions = b.condition_flags;
  for (const auto& reading : gpu_readings(b.runs))
    if (reading.sm_clock_mhz) side.sm_clock_mhz = reading.sm_clock_mhz;
  return side;
}

std::string flags_text(const std::vector<std::string>& flags) {
  std::string s;
  for (const auto& f : flags) s += (s.empty() ? "" : ",") + f;
  return s.empty() ? std::string("none") : s;
}

TimingChange row_of(const BenchRecord& b) {
  TimingChange t;
  t.case_id = b.case_id;
  if (b.collective) t.size_bytes = b.collective->size_bytes;
  t.impl_key = b.impl_key;
  t.op = b.op;
  t.peer = b.peer || b.copy_baseline;
  return t;
}

std::string too_few_repetitions_note(double alpha) {
  return fmt::format("some rows have too few repetitions for a rank test at p < {} (both runs need "
                     "--benchmark_repetitions=4 or more): their change is shown, never gated",
                     alpha);
}

void compare_timings(Comparison& c, const RunReport& base, const RunReport& now, const CompareOptions& options) {
  std::map<std::string, const BenchRecord*> before;
  for (const auto& b : base.benchmarks) before[b.name] = &b;
  bool untestable = false;
  std::size_t host_bound = 0;
  for (const auto& b : now.benchmarks) {
    TimingChange t = row_of(b);
    t.now = side_of(b);
    const auto it = before.find(b.name);
    if (it == before.end()) {
      t.verdict = TimingVerdict::kMissing;
      t.note = "not in the base run";
      c.timings.push_back(std::move(t));
      continue;
    }
    t.base = side_of(*it->second);
    if (t.base.conditions != t.now.conditions)
      t.note = fmt::format("GPU conditions differ: {} -> {}", flags_text(t.base.conditions), flags_text(t.now.conditions));
    if (it->second->host_bound || b.host_bound) {
      // Still gated: a call that got slower to issue is slower for its user too.
      const char* where = it->second->host_bound && b.host_bound ? "both runs" : b.host_bound ? "the new run" : "the base run";
      t.note += (t.note.empty() ? "" : "; ") + fmt::format("host-bound in {}", where);
      ++host_bound;
    }
    if (!t.base.seconds || !t.now.seconds || *t.base.seconds <= 0) {
      t.verdict = TimingVerdict::kMissing;
      t.note = !t.now.seconds ? "not timed in the new run" : "not timed in the base run";
      c.timings.push_back(std::move(t));
      continue;
    }
    t.change = *t.now.seconds / *t.base.seconds - 1.0;
    const double floor = smallest_p_value(t.base.repetitions.size(), t.now.repetitions.size());
    if (floor >= options.alpha) {
      t.verdict = TimingVerdict::kUntestable;
      t.note += (t.note.empty() ? "" : "; ") + fmt::format("{} and {} repetitions: a rank test cannot reach p < {}",
                                                         t.base.repetitions.size(), t.now.repetitions.size(),
                                                         options.alpha);
      untestable = true;
    } else {
      t.p_value = mann_whitney_u(t.now.repetitions, t.base.repetitions).p_value;
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
      TimingChange t = row_of(b);
      t.base.seconds = b.seconds;
      t.verdict = TimingVerdict::kMissing;
      t.note = "not in the new run";
      c.timings.push_back(std::move(t));
    }
  if (untestable) c.notes.push_back(too_few_repetitions_note(options.alpha));
  if (host_bound > 0)
    c.notes.push_back(fmt::format("{} row(s) were host-bound in a run (bench's h): their time is how fast the host "
                                  "issued the call, which moves with the host's load, so their change may be the host's",
                                  host_bound));
}

// Runs that share no result and no benchmark row (two suites, a run against a bench of other cases)
// would read as every case gone and every case new: that says nothing of a change, so it is an
// input error, not a regression.
void require_common_cases(const RunReport& base, const RunReport& now, const std::string& base_label,
                          const std::string& new_label) {
  if ((base.results.empty() && base.benchmarks.empty()) || (now.results.empty() && now.benchmarks.empty())) return;
  const bool placed = placed_results(base, now);
  std::set<std::string> keys, names;
  for (const auto& r : base.results) keys.insert(result_key(r, placed));
  for (const auto& b : base.benchmarks) names.insert(b.name);
  for (const auto& r : now.results)
    if (keys.contains(result_key(r, placed))) return;
  for (const auto& b : now.benchmarks)
    if (names.contains(b.name)) return;
  throw InputError(fmt::format("'{}' (suite {}) and '{}' (suite {}) have no case in common (results match by case id, "
                               "implementation key and device): compare two runs of one suite",
                               base_label, base.suite, new_label, now.suite));
}

// The timing gates where a side has no timings: asked for on the command line, they cannot judge
// (an input error); on by default, they are left off and the report says so, so that "no gate
// failed" never stands for timings nobody compared.
CompareOptions timing_gates(Comparison& c, const RunReport& base, const RunReport& now, CompareOptions options) {
  const auto rows = [](const RunReport& r, const std::string& label) {
    return fmt::format("'{}' ({}) has {} benchmark row(s)", label, r.kind == kBenchReportKind ? "a bench" : "a run",
                       r.benchmarks.size());
  };
  const std::string sides = rows(base, c.base_label) + " and " + rows(now, c.new_label);
  if (base.benchmarks.empty() != now.benchmarks.empty() && options.fail_on.contains("perf")) {
    if (options.asked.contains("perf"))
      throw InputError(fmt::format("{}: the perf gate (--max-slowdown, --alpha, --fail-on perf) has no timings to "
                                   "compare; compare two bench runs, or leave the perf gate out",
                                   sides));
    options.fail_on.erase("perf");
    c.notes.push_back(fmt::format("{}: no timing was compared, and the perf gate was left off", sides));
  }
  if (now.benchmarks.empty() && options.min_peer_ratio) {
    if (options.asked.contains("peer_ratio"))
      throw InputError(fmt::format("{}: --min-peer-ratio has no timings of the new run to judge; give a bench run, "
                                   "or leave the peer_ratio gate out",
                                   rows(now, c.new_label)));
    options.min_peer_ratio.reset();
    options.fail_on.erase("peer_ratio");
    c.notes.push_back(fmt::format("{}: the peer_ratio gate was left off", rows(now, c.new_label)));
  }
  return options;
}

// The perf gate where every row it would judge is untestable (too few repetitions a side for the
// rank test): it would pass whatever the timings did. Asked for on the command line, that is an
// input error; on by default (or by the platform config), it is left off and the report says so,
// so that "no gate failed (perf)" always means rows were tested.
CompareOptions untestable_perf_gate(Comparison& c, CompareOptions options) {
  if (!options.fail_on.contains("perf")) return options;
  const TimingChange* first = nullptr;
  std::size_t rows = 0;
  for (const auto& t : c.timings) {
    if (t.peer || t.verdict == TimingVerdict::kMissing) continue;
    if (t.verdict != TimingVerdict::kUntestable) return options;
    if (first == nullptr) first = &t;
    ++rows;
  }
  if (first == nullptr) return options;
  const std::string what =
      fmt::format("'{}' and '{}': none of the {} row(s) the perf gate judges can be rank-tested ({} and {} "
                  "repetitions; p < {} needs 4 a side)",
                  c.base_label, c.new_label, rows, first->base.repetitions.size(), first->now.repetitions.size(),
                  options.alpha);
  if (options.asked.contains("perf"))
    throw InputError(what + ", so the perf gate (--max-slowdown, --alpha, --fail-on perf) would pass whatever they "
                            "did; bench both runs with --benchmark_repetitions=5, or leave the perf gate out");
  options.fail_on.erase("perf");
  std::erase(c.notes, too_few_repetitions_note(options.alpha));  // "some rows": all of them, said below
  c.notes.push_back(what + ": the perf gate was left off");
  return options;
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
  for (const auto& b : run.backends) {
    if (!b.sha256.empty()) f["backends." + b.name + ".sha256"] = b.sha256;
    if (!b.package.empty())
      f["backends." + b.name + ".package"] = b.package.name + " " + b.package.version + " " + b.package.sha256;
  }
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
  require_common_cases(base, now, base_label, new_label);
  Comparison c;
  c.mode = "runs";
  c.base_label = base_label;
  c.new_label = new_label;
  CompareOptions gates = timing_gates(c, base, now, options);
  compare_statuses(c, base, now, options);
  compare_timings(c, base, now, options);
  gates = untestable_perf_gate(c, gates);
  compare_environments(c, base, now);
  if (base_device != new_device)
    c.notes.push_back(fmt::format("different devices ('{}' and '{}'): --across-devices", base_device, new_device));
  apply_gates(c, now, gates);
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
        c.failures.push_back({"status", s.case_id, std::nullopt, s.impl_key,
                              fmt::format("{} -> {}{}", s.base ? std::string(status_name(*s.base)) : "(none)",
                                          s.now ? std::string(status_name(*s.now)) : "(none)",
                                          s.message.empty() ? "" : ": " + s.message)});
  if (on.contains("perf"))
    for (const auto& t : c.timings)
      if (!t.peer && t.verdict == TimingVerdict::kSlower)
        c.failures.push_back({"perf", t.case_id, t.size_bytes, t.impl_key,
                              fmt::format("{:+.1f}% (p = {:.3g}), over --max-slowdown {:.1f}%", 100 * *t.change,
                                          *t.p_value, 100 * options.max_slowdown)});
  if (on.contains("alignment"))
    for (const auto& d : c.drifts)
      if (d.beyond)
        c.failures.push_back({"alignment", d.case_id, std::nullopt, d.impl_key,
                              fmt::format("alignment or RMSE grew {:.3g}x, over --max-alignment-growth {:.3g}",
                                          d.growth, options.max_alignment_growth)});
  if (on.contains("peer_ratio") && options.min_peer_ratio) {
    const auto peers = peer_backends(now);
    for (const auto& b : now.benchmarks) {
      if (b.peer || b.copy_baseline || peers.contains(b.backend)) continue;
      const auto ratio = b.collective ? b.collective->ratio_vs_peer : b.speedup_vs_peer;
      if (ratio && *ratio < *options.min_peer_ratio)
        c.failures.push_back({"peer_ratio", b.case_id,
                              b.collective ? std::optional<uint64_t>(b.collective->size_bytes) : std::nullopt, b.impl_key,
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
