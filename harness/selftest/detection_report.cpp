#include "selftest/detection_report.h"

#include <fmt/format.h>

namespace opcert {
namespace {

// A message cut to its first line and `width` characters, for one table row.
std::string brief(const std::string& message, std::size_t width) {
  std::string line = message.substr(0, message.find('\n'));
  if (line.size() > width) line = line.substr(0, width - 3) + "...";
  return line;
}

std::string rate_line(const DetectionSummary& s) {
  return fmt::format("{} of {} mutants caught ({:.1f}%) by suite{} {}; twins silent on {} of {} results",
                     s.caught(), s.mutants.size(), 100.0 * s.rate(), s.suites.size() == 1 ? "" : "s",
                     fmt::join(s.suites, ", "), s.twin_results - static_cast<int>(s.twin_alarms.size()), s.twin_results);
}

}  // namespace

std::string detection_text(const DetectionSummary& s) {
  std::string out = fmt::format("{:<14} {:<24} {:>7} {:>7}  {}\n", "op", "mutant", "judged", "caught", "first catching case");
  out += std::string(100, '-') + "\n";
  for (const MutantDetection& m : s.mutants) {
    const std::string first =
        m.caught() ? fmt::format("{} ({}): {}", m.caught_by[0].case_id, m.caught_by[0].suite, brief(m.caught_by[0].message, 90))
                   : "ESCAPED";
    out += fmt::format("{:<14} {:<24} {:>7} {:>7}  {}\n", m.op, m.slip, m.judged, m.caught_by.size(), first);
  }
  for (const MutantDetection& m : s.mutants)
    if (!m.caught())
      out += fmt::format("ESCAPED: {} passed all {} case(s) its twin passed{}\n", m.key, m.judged,
                         m.judged == 0 ? " (no case of the suites runs it: choose suites with cases of this op)" : "");
  for (const TwinAlarm& a : s.twin_alarms)
    out += fmt::format("FALSE ALARM: {} {} on {} ({}): {}\n", a.key, a.status, a.case_id, a.suite, brief(a.message, 160));
  out += rate_line(s) + "\n";
  return out;
}

std::string detection_markdown(const DetectionSummary& s) {
  std::string out = "| op | mutant | caught by (of judged) | first catching case | reason |\n|---|---|---|---|---|\n";
  for (const MutantDetection& m : s.mutants) {
    std::string reason = m.caught() ? brief(m.caught_by[0].message, 100) : "";
    for (std::size_t at = 0; (at = reason.find('|', at)) != std::string::npos; at += 2) reason.replace(at, 1, "\\|");
    out += fmt::format("| {} | `{}` | {} of {} | {} | {} |\n", m.op, m.slip, m.caught_by.size(), m.judged,
                       m.caught() ? fmt::format("`{}` ({})", m.caught_by[0].case_id, m.caught_by[0].suite) : "**escaped**",
                       reason);
  }
  out += "\n" + rate_line(s) + ".\n";
  return out;
}

nlohmann::json detection_json(const DetectionSummary& s) {
  nlohmann::json mutants = nlohmann::json::array();
  for (const MutantDetection& m : s.mutants) {
    nlohmann::json caught = nlohmann::json::array();
    for (const CatchingCase& c : m.caught_by)
      caught.push_back({{"suite", c.suite}, {"case", c.case_id}, {"status", c.status}, {"message", c.message}});
    mutants.push_back({{"key", m.key}, {"op", m.op}, {"slip", m.slip}, {"judged", m.judged}, {"caught", m.caught()},
                       {"caught_by", std::move(caught)}});
  }
  nlohmann::json alarms = nlohmann::json::array();
  for (const TwinAlarm& a : s.twin_alarms)
    alarms.push_back({{"key", a.key}, {"suite", a.suite}, {"case", a.case_id}, {"status", a.status}, {"message", a.message}});
  return {{"kind", "opcert-selftest"},
          {"schema_version", "1.0"},
          {"suites", s.suites},
          {"mutants_total", s.mutants.size()},
          {"mutants_caught", s.caught()},
          {"detection_rate", s.rate()},
          {"twin_results", s.twin_results},
          {"clean", s.clean()},
          {"mutants", std::move(mutants)},
          {"twin_alarms", std::move(alarms)}};
}

}  // namespace opcert
