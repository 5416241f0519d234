#include "compare/compare_backends.h"

#include <fmt/format.h>

#include <cmath>
#include <map>
#include <set>

#include "model/input_error.h"

namespace opcert {
namespace {

struct Side {
  const CaseResult* result = nullptr;
  const BenchRecord* bench = nullptr;
};

// Who a result belongs to under `by`: its backend, its implementation key, or its device's index
// ("" for an untagged result).
std::string side_name(const CaseResult& r, SideBy by) {
  if (by == SideBy::kDevice) return r.device ? std::to_string(r.device->index) : "";
  return by == SideBy::kImpl ? r.impl_key : r.backend;
}

// The side of `who` per case (case id; with devices, and the backend and implementation): its
// fastest timed implementation, else its first result.
using SideKey = std::pair<std::string, std::string>;
std::map<SideKey, Side> sides_of(const RunReport& run, const std::string& who, SideBy by) {
  std::map<SideKey, Side> sides;
  for (const auto& b : run.benchmarks) {
    if (by == SideBy::kDevice || b.copy_baseline || (by == SideBy::kImpl ? b.impl_key : b.backend) != who || !b.seconds ||
        !b.error.empty())
      continue;
    Side& s = sides[{b.case_id, ""}];
    if (s.bench == nullptr || *b.seconds < *s.bench->seconds) s.bench = &b;
  }
  for (const auto& r : run.results) {
    if (side_name(r, by) != who) continue;
    Side& s = sides[{r.case_id, by == SideBy::kDevice ? r.backend + "\n" + r.impl_key : ""}];
    if (s.bench != nullptr ? s.bench->impl_key == r.impl_key : s.result == nullptr) s.result = &r;
  }
  return sides;
}

std::string names_in(const RunReport& run, SideBy by) {
  std::set<std::string> names;
  for (const auto& r : run.results)
    if (const std::string name = side_name(r, by); !name.empty()) names.insert(name);
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out.empty() ? "none" : out;
}

void worst(std::optional<double>& slot, const std::optional<double>& v) {
  if (v && (!slot || *v > *slot)) slot = v;
}

}  // namespace

Comparison compare_backends(const RunReport& run, const std::string& run_label, const std::string& a,
                            const std::string& b, SideBy by) {
  const auto side_a = sides_of(run, a, by), side_b = sides_of(run, b, by);
  const char* what = by == SideBy::kImpl ? "implementation" : by == SideBy::kDevice ? "device" : "backend";
  for (const auto& [name, sides] : {std::pair{&a, &side_a}, std::pair{&b, &side_b}})
    if (sides->empty())
      throw InputError(fmt::format("{} '{}' has no result in '{}' (it has: {}{})", what, *name, run_label,
                                   names_in(run, by),
                                   by == SideBy::kDevice ? "; a run tags its results with devices under --devices" : ""));
  Comparison c;
  c.mode = "backends";
  c.base_label = by == SideBy::kDevice ? "device " + a : a;
  c.new_label = by == SideBy::kDevice ? "device " + b : b;
  std::map<std::pair<std::string, std::string>, std::pair<BackendPairSummary, std::vector<double>>> groups;
  for (const auto& [key, x] : side_a) {
    const auto it = side_b.find(key);
    if (it == side_b.end()) continue;
    const Side& y = it->second;
    BackendPair p;
    p.case_id = key.first;
    const CaseResult* any = x.result != nullptr ? x.result : y.result;
    p.op = any != nullptr ? any->op : x.bench != nullptr ? x.bench->op : "";
    p.dtype = any != nullptr ? any->dtype : "";
    p.impl_a = x.bench ? x.bench->impl_key : x.result ? x.result->impl_key : "";
    p.impl_b = y.bench ? y.bench->impl_key : y.result ? y.result->impl_key : "";
    if (x.result) p.status_a = x.result->status, p.alignment_a = x.result->alignment_ratio;
    if (y.result) p.status_b = y.result->status, p.alignment_b = y.result->alignment_ratio;
    if (x.bench) p.seconds_a = x.bench->seconds;
    if (y.bench) p.seconds_b = y.bench->seconds;
    if (p.seconds_a && p.seconds_b && *p.seconds_a > 0) p.time_ratio = *p.seconds_b / *p.seconds_a;
    auto& [summary, ratios] = groups[{p.op, p.dtype}];
    summary.op = p.op;
    summary.dtype = p.dtype;
    ++summary.cases;
    summary.passed_a += p.status_a == Status::kPassed;
    summary.passed_b += p.status_b == Status::kPassed;
    worst(summary.worst_alignment_a, p.alignment_a);
    worst(summary.worst_alignment_b, p.alignment_b);
    if (p.time_ratio) ratios.push_back(*p.time_ratio);
    c.pairs.push_back(std::move(p));
  }
  for (auto& [key, group] : groups) {
    auto& [summary, ratios] = group;
    if (!ratios.empty()) {
      double log_sum = 0;
      for (double r : ratios) log_sum += std::log(r);
      summary.geomean_time_ratio = std::exp(log_sum / static_cast<double>(ratios.size()));
    }
    c.pair_summaries.push_back(summary);
  }
  if (c.pairs.empty())
    c.notes.push_back(fmt::format("'{}' and '{}' share no case in '{}'", c.base_label, c.new_label, run_label));
  return c;
}

}  // namespace opcert
