#include "selftest/mutant_detection.h"

#include <algorithm>
#include <map>
#include <tuple>

#include "opkit/op_registry.h"

namespace opcert {
namespace {

// "mutants.<op>.<slip>" -> {op, slip}; {"", ""} for another key.
std::pair<std::string, std::string> split_key(const std::string& key) {
  const std::string prefix = kMutantKeyPrefix;
  const auto last = key.rfind('.');
  if (!key.starts_with(prefix) || last == std::string::npos || last < prefix.size()) return {};
  return {key.substr(prefix.size(), last - prefix.size()), key.substr(last + 1)};
}

// When ranks (or devices) disagree the worst outcome stands: any rank not passing makes the case not pass.
int severity(Status s) { return s == Status::kSkipped ? 0 : s == Status::kPassed ? 1 : 2; }

// The catalogue's order of an op, for tables that read like docs/OPS.md.
int op_order(const std::string& op) {
  const OpDescriptor* d = find_op(op);
  return d != nullptr ? d->order : 1 << 20;
}

}  // namespace

bool catches(Status mutant) { return mutant == Status::kFailed || mutant == Status::kCrashed; }

void DetectionTally::expect(const std::string& key) { expected_.push_back(key); }

int DetectionSummary::caught() const {
  return static_cast<int>(std::count_if(mutants.begin(), mutants.end(), [](const MutantDetection& m) { return m.caught(); }));
}

double DetectionSummary::rate() const { return mutants.empty() ? 0.0 : static_cast<double>(caught()) / mutants.size(); }

bool DetectionSummary::clean() const { return !mutants.empty() && caught() == static_cast<int>(mutants.size()) && twin_alarms.empty(); }

void DetectionTally::add(const RunReport& run, const std::string& suite) {
  suites_.push_back(suite);
  // One outcome per (case, key): the worst over the ranks and devices that ran it.
  std::map<std::pair<std::string, std::string>, std::size_t> index;
  for (const CaseResult& r : run.results) {
    if (split_key(r.impl_key).first.empty()) continue;
    const Outcome outcome{suite, r.case_id, r.impl_key, std::string(status_name(r.status)), r.message, r.status};
    const auto [it, fresh] = index.emplace(std::make_pair(r.case_id, r.impl_key), outcomes_.size());
    if (fresh) outcomes_.push_back(outcome);
    else if (severity(r.status) > severity(outcomes_[it->second].status)) outcomes_[it->second] = outcome;
  }
}

DetectionSummary DetectionTally::summary() const {
  DetectionSummary s;
  s.suites = suites_;
  // The twin's outcome on each case of each op.
  std::map<std::tuple<std::string, std::string, std::string>, const Outcome*> twins;  // (suite, case, op)
  std::map<std::string, MutantDetection> mutants;
  for (const std::string& key : expected_) {
    const auto [op, slip] = split_key(key);
    if (!op.empty() && slip != kTwinSlip) mutants[key] = {key, op, slip, 0, {}};
  }
  for (const Outcome& o : outcomes_) {
    const auto [op, slip] = split_key(o.key);
    if (slip == kTwinSlip) {
      twins[{o.suite, o.case_id, op}] = &o;
      if (o.skipped()) continue;
      ++s.twin_results;
      if (!o.passed()) s.twin_alarms.push_back({o.key, o.suite, o.case_id, o.status_text, o.message});
    } else if (!mutants.contains(o.key)) {
      mutants[o.key] = {o.key, op, slip, 0, {}};
    }
  }
  for (const Outcome& o : outcomes_) {
    const auto [op, slip] = split_key(o.key);
    if (slip == kTwinSlip || o.skipped()) continue;
    const auto twin = twins.find({o.suite, o.case_id, op});
    if (twin == twins.end() || !twin->second->passed()) continue;  // nothing to tell the slip apart from
    MutantDetection& m = mutants[o.key];
    ++m.judged;
    if (catches(o.status)) m.caught_by.push_back({o.suite, o.case_id, o.status_text, o.message});
  }
  for (auto& [key, m] : mutants) s.mutants.push_back(std::move(m));
  std::stable_sort(s.mutants.begin(), s.mutants.end(), [](const MutantDetection& a, const MutantDetection& b) {
    return std::make_tuple(op_order(a.op), a.op, a.slip) < std::make_tuple(op_order(b.op), b.op, b.slip);
  });
  return s;
}

}  // namespace opcert
