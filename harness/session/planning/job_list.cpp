#include "session/planning/job_list.h"

#include <regex>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "loader/name_selection.h"
#include "model/input_error.h"

namespace opcert {

std::vector<std::size_t> filter_cases(const std::vector<Case>& cases, const std::string& regex) {
  std::vector<std::size_t> selected;
  if (regex.empty()) {
    for (std::size_t i = 0; i < cases.size(); ++i) selected.push_back(i);
    return selected;
  }
  std::regex re;
  try {
    re = std::regex(regex, std::regex::ECMAScript);
  } catch (const std::regex_error& e) {
    throw InputError("--filter '" + regex + "' is not a valid regular expression (ECMAScript): " + e.what());
  }
  for (std::size_t i = 0; i < cases.size(); ++i)
    if (std::regex_search(cases[i].id, re)) selected.push_back(i);
  return selected;
}

std::vector<Job> build_jobs(const std::vector<BackendPlan>& backends, const std::vector<Case>& cases,
                            const std::vector<std::size_t>& selected_cases, const std::string& impl_selection) {
  const NameSelection impls(impl_selection);
  auto jobs_of = [&](std::size_t b, const std::vector<std::size_t>& case_indices, bool all_impls) {
    std::vector<Job> out;
    for (std::size_t c : case_indices)
      for (const auto& impl : backends[b].implementations)
        if (impl.op == cases.at(c).op && (all_impls || impls.matches(impl.key)))
          out.push_back({b, backends[b].name, impl.key, c, backends[b].peer});
    return out;
  };
  // The selected backends first, so the peer runs exactly the cases they run.
  std::vector<std::vector<Job>> per_backend(backends.size());
  std::vector<bool> gated_case(cases.size(), false);
  for (std::size_t b = 0; b < backends.size(); ++b) {
    if (backends[b].peer) continue;
    per_backend[b] = jobs_of(b, selected_cases, false);
    for (const Job& j : per_backend[b]) gated_case[j.case_index] = true;
  }
  std::vector<std::size_t> peer_cases;
  for (std::size_t c : selected_cases)
    if (gated_case[c]) peer_cases.push_back(c);
  for (std::size_t b = 0; b < backends.size(); ++b)
    if (backends[b].peer) per_backend[b] = jobs_of(b, peer_cases, true);

  std::vector<Job> jobs;
  for (auto& list : per_backend) jobs.insert(jobs.end(), list.begin(), list.end());
  return jobs;
}

std::vector<std::string> matching_implementations(const std::vector<BackendPlan>& backends,
                                                  const std::string& impl_selection) {
  const NameSelection impls(impl_selection);
  std::vector<std::string> keys;
  for (const auto& b : backends)
    for (const auto& impl : b.implementations)
      if (impls.matches(impl.key)) keys.push_back(impl.key);
  return keys;
}

std::vector<Job> plan_checked_jobs(const std::vector<BackendPlan>& backends, const Suite& suite,
                                   const std::string& filter, const std::string& impl_selection) {
  const auto selected = filter_cases(suite.cases, filter);
  if (selected.empty())
    throw InputError(filter.empty() ? fmt::format("suite '{}' ({}) has no cases", suite.name, suite.path)
                                    : fmt::format("--filter '{}' matches none of the {} cases of suite '{}'", filter,
                                                  suite.cases.size(), suite.name));
  std::vector<BackendPlan> gated;
  for (const auto& p : backends)
    if (!p.peer) gated.push_back(p);
  if (!impl_selection.empty() && matching_implementations(gated, impl_selection).empty())
    throw InputError(fmt::format("--impl '{}' matches no implementation of the selected backends; "
                                 "`opcert list` shows their implementation keys",
                                 impl_selection));
  auto jobs = build_jobs(backends, suite.cases, selected, impl_selection);
  if (std::none_of(jobs.begin(), jobs.end(), [](const Job& j) { return !j.peer; })) {
    std::vector<std::string> names;
    for (const auto& p : gated) names.push_back(p.name);
    throw NoBackendError(fmt::format("no selected backend ({}) has an implementation{} for the ops of the {} "
                                     "selected case(s) of suite '{}'",
                                     fmt::join(names, ", "),
                                     impl_selection.empty() ? "" : " matching --impl '" + impl_selection + "'",
                                     selected.size(), suite.name));
  }
  return jobs;
}

}  // namespace opcert
