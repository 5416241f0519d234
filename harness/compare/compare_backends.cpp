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

bool belongs(const std::string& backend, const std::string& impl, const std::string& who, bool by_impl) {
  return by_impl ? impl == who : backend == who;
}

// Per case id, the side of `who`: its fastest timed implementation, else its first result.
std::map<std::string, Side> sides_of(const RunReport& run, const std::string& who, bool by_impl) {
  std::map<std::string, Side> sides;
  for (const auto& b : run.benchmarks) {
    if (b.copy_baseline || !belongs(b.backend, b.impl_key, who, by_impl) || !b.seconds || !b.error.empty()) continue;
    Side& s = sides[b.case_id];
    if (s.bench == nullptr || *b.seconds < *s.bench->seconds) s.bench = &b;
  }
  for (const auto& r : run.results) {
    if (!belongs(r.backend, r.impl_key, who, by_impl)) continue;
    Side& s = sides[r.case_id];
    if (s.bench != nullptr ? s.bench->impl_key == r.impl_key : s.result == nullptr) s.result = &r;
  }
  return sides;
}

std::string names_in(const RunReport& run, bool by_impl) {
  std::set<std::string> names;
  for (const auto& r : run.results) names.insert(by_impl ? r.impl_key : r.backend);
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out.empty() ? "none" : out;
}

void worst(std::optional<double>& slot, const std::optional<double>& v) {
  if (v && (!slot || *v > *slot)) slot = v;
}

}  // namespace

Comparison compare_backends(const RunReport& run, const std::string& run_label, const std::string& a,
                            const std::string& b, bool by_impl) {
  const auto side_a = sides_of(run, a, by_impl), side_b = sides_of(run, b, by_impl);
  const char* what = by_impl ? "implementation" : "backend";
  for (const auto& [name, sides] : {std::pair{&a, &side_a}, std::pair{&b, &side_b}})
    if (sides->empty())
      throw InputError(fmt::format("{} '{}' has no result in '{}' (it has: {})", what, *name, run_label,
                                   names_in(run, by_impl)));
  Comparison c;
  c.mode = "backends";
  c.base_label = a;
  c.new_label = b;
  std::map<std::pair<std::string, std::string>, std::pair<BackendPairSummary, std::vector<double>>> groups;
  for (const auto& [case_id, x] : side_a) {
    const auto it = side_b.find(case_id);
    if (it == side_b.end()) continue;
    const Side& y = it->second;
    BackendPair p;
    p.case_id = case_id;
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
    c.notes.push_back(fmt::format("'{}' and '{}' share no case in '{}'", a, b, run_label));
  return c;
}

}  // namespace opcert
