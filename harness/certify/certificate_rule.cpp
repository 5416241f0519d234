#include "certify/certificate_rule.h"

#include <fmt/format.h>

namespace opcert {

SuiteTally tally_suite(const PlannedSuite& planned, int exit_code, const std::vector<CaseResult>& results,
                       const std::string& backend, const std::set<Status>& fail_statuses) {
  SuiteTally t{planned, exit_code, 0, 0, {}, {}};
  for (const auto& r : results) {
    if (r.backend != backend) continue;
    const bool failing = fail_statuses.contains(r.status);
    ++t.results;
    ++t.counts[std::string(status_name(r.status))];
    if (failing) ++t.failing;
    if (!r.device) continue;
    auto& device = t.devices[{r.rank.value_or(0), r.device->host, r.device->index}];
    device.first = device_identity_label(r.device, r.rank);
    if (failing) ++device.second;
  }
  return t;
}

namespace {

// "; failing on device 1 (UUID X); passing on device 0 (UUID Y), device 2 (UUID Z)": which of the
// chosen devices the failing results ran on. "" when no result ran on a chosen device.
std::string devices_clause(const std::vector<SuiteTally>& suites) {
  std::map<std::tuple<int, std::string, int>, std::pair<std::string, int>> devices;
  for (const auto& s : suites)
    for (const auto& [key, device] : s.devices) {
      auto& d = devices[key];
      d.first = device.first;
      d.second += device.second;
    }
  std::string failing, passing;
  for (const auto& [key, d] : devices) {
    std::string& list = d.second > 0 ? failing : passing;
    list += (list.empty() ? "" : ", ") + d.first;
  }
  if (failing.empty()) return "";
  return "; failing on " + failing + (passing.empty() ? "" : "; passing on " + passing);
}

}  // namespace

Certificate judge_certificate(const std::vector<SuiteTally>& suites, const std::string& backend) {
  Certificate cert;
  for (const auto& s : suites) {
    cert.results += s.results;
    cert.failing_results += s.failing;
    if (s.exit_code != 0 && s.failing == 0 && cert.reason.empty())
      cert.reason = fmt::format("suite {} (seed {}) ended with exit code {}", s.planned.suite, s.planned.seed, s.exit_code);
  }
  if (cert.failing_results > 0)
    cert.reason = fmt::format("{} of {} results of {} have a status the plan fails{}", cert.failing_results, cert.results,
                              backend, devices_clause(suites));
  if (cert.results == 0 && cert.reason.empty()) cert.reason = fmt::format("no result of backend {}", backend);
  cert.certified = cert.reason.empty();
  return cert;
}

std::string verdict_text(const Certificate& certificate) {
  return certificate.certified ? "certified" : "not certified";
}

std::string summary_verdict_line(const Certificate& certificate) {
  return fmt::format("**{}**{}", certificate.certified ? "Certified" : "Not certified",
                     certificate.reason.empty() ? "" : ": " + certificate.reason);
}

std::string statuses_text(const std::map<std::string, int>& counts) {
  std::string text;
  for (const auto& [status, n] : counts) text += (text.empty() ? "" : ", ") + fmt::format("{} {}", n, status);
  return text;
}

std::string summary_row(const SuiteTally& suite) {
  return fmt::format("| {} | {} | {} | {} | {} |", suite.planned.suite, suite.planned.seed, suite.results,
                     statuses_text(suite.counts),
                     suite.failing == 0 ? "pass" : fmt::format("**{} failing**", suite.failing));
}

}  // namespace opcert
