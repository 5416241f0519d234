#include "compare/comparison_files.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "reports/number_format.h"
#include "reports/xml_escape.h"

namespace opcert {
namespace {

using nlohmann::json;

json status_json(const std::optional<Status>& s) { return s ? json(std::string(status_name(*s))) : json(nullptr); }

json numbers(const std::vector<double>& values) {
  json a = json::array();
  for (double v : values) a.push_back(json_number(v));
  return a;
}

// One run's side of a timing row, its keys prefixed "base_" or "new_".
void add_side(json& row, const std::string& prefix, const TimingSide& side) {
  row[prefix + "seconds"] = json_number(side.seconds);
  row[prefix + "repetitions"] = numbers(side.repetitions);
  row[prefix + "noise"] = json_number(side.noise);
  row[prefix + "peer_ratio"] = json_number(side.peer_ratio);
  row[prefix + "busbw_gbps"] = json_number(side.busbw);
  row[prefix + "conditions"] = side.conditions;
  row[prefix + "sm_clock_mhz"] = side.sm_clock_mhz ? json(*side.sm_clock_mhz) : json(nullptr);
}

}  // namespace

json comparison_json(const Comparison& c, int exit_code) {
  json statuses = json::array(), drifts = json::array(), timings = json::array(), environment = json::array(),
       pairs = json::array(), summaries = json::array(), failures = json::array();
  for (const auto& s : c.statuses)
    statuses.push_back({{"case", s.case_id}, {"impl", s.impl_key}, {"op", s.op}, {"dtype", s.dtype}, {"peer", s.peer},
                        {"base", status_json(s.base)}, {"new", status_json(s.now)}, {"message", s.message},
                        {"regression", s.regression}});
  for (const auto& d : c.drifts)
    drifts.push_back({{"case", d.case_id}, {"impl", d.impl_key}, {"op", d.op},
                      {"base_alignment_ratio", json_number(d.base_ratio)}, {"new_alignment_ratio", json_number(d.new_ratio)},
                      {"base_rmse", json_number(d.base_rmse)}, {"new_rmse", json_number(d.new_rmse)},
                      {"growth", json_number(d.growth)}, {"beyond", d.beyond}});
  for (const auto& t : c.timings) {
    json row = {{"case", t.case_id}, {"impl", t.impl_key}, {"op", t.op}, {"peer", t.peer},
                {"change", json_number(t.change)}, {"p_value", json_number(t.p_value)},
                {"verdict", verdict_name(t.verdict)}, {"note", t.note}};
    add_side(row, "base_", t.base);
    add_side(row, "new_", t.now);
    timings.push_back(std::move(row));
  }
  for (const auto& e : c.environment) environment.push_back({{"what", e.what}, {"base", e.base}, {"new", e.now}});
  for (const auto& p : c.pairs)
    pairs.push_back({{"case", p.case_id}, {"op", p.op}, {"dtype", p.dtype}, {"impl_a", p.impl_a}, {"impl_b", p.impl_b},
                     {"status_a", status_json(p.status_a)}, {"status_b", status_json(p.status_b)},
                     {"alignment_a", json_number(p.alignment_a)}, {"alignment_b", json_number(p.alignment_b)},
                     {"seconds_a", json_number(p.seconds_a)}, {"seconds_b", json_number(p.seconds_b)},
                     {"time_ratio", json_number(p.time_ratio)}});
  for (const auto& s : c.pair_summaries)
    summaries.push_back({{"op", s.op}, {"dtype", s.dtype}, {"cases", s.cases},
                         {"geomean_time_ratio", json_number(s.geomean_time_ratio)},
                         {"worst_alignment_a", json_number(s.worst_alignment_a)},
                         {"worst_alignment_b", json_number(s.worst_alignment_b)}, {"passed_a", s.passed_a},
                         {"passed_b", s.passed_b}});
  for (const auto& f : c.failures)
    failures.push_back({{"gate", f.gate}, {"case", f.case_id}, {"impl", f.impl_key}, {"what", f.what}});
  return {{"schema_version", kCompareSchemaVersion},
          {"kind", "opcert-comparison"},
          {"mode", c.mode},
          {"base", c.base_label},
          {"new", c.new_label},
          {"statuses", statuses},
          {"unchanged_statuses", c.unchanged_statuses},
          {"alignment", drifts},
          {"timings", timings},
          {"environment", environment},
          {"pairs", pairs},
          {"pair_summaries", summaries},
          {"gates", c.gates},
          {"failures", failures},
          {"notes", c.notes},
          {"exit_code", exit_code}};
}

std::string comparison_junit(const Comparison& c) {
  // One test case per (gate, row) that was judged, failed when a gate failed it.
  std::map<std::string, std::string> failed;  // "gate/case/impl" -> what
  for (const auto& f : c.failures) failed[f.gate + "/" + f.case_id + "/" + f.impl_key] = f.what;
  std::vector<std::pair<std::string, std::string>> cases;  // (classname, name)
  const auto on = [&](const std::string& gate) {
    return std::find(c.gates.begin(), c.gates.end(), gate) != c.gates.end();
  };
  if (on("status"))
    for (const auto& s : c.statuses)
      if (!s.peer) cases.emplace_back("status", s.case_id + "/" + s.impl_key);
  if (on("perf"))
    for (const auto& t : c.timings)
      if (!t.peer) cases.emplace_back("perf", t.case_id + "/" + t.impl_key);
  if (on("alignment"))
    for (const auto& d : c.drifts) cases.emplace_back("alignment", d.case_id + "/" + d.impl_key);
  for (const auto& f : c.failures)
    if (f.gate == "peer_ratio") cases.emplace_back("peer_ratio", f.case_id + "/" + f.impl_key);
  std::string body;
  for (const auto& [gate, name] : cases) {
    const auto it = failed.find(gate + "/" + name);
    body += fmt::format("    <testcase classname=\"opcert.compare.{}\" name=\"{}\" time=\"0\"", gate,
                        xml_escape_attribute(name));
    if (it == failed.end()) {
      body += "/>\n";
    } else {
      // type: junit.xsd's word for a failed result; the classname names the gate.
      body += fmt::format(">\n      <failure message=\"{}\" type=\"FAILED\">{}: {}</failure>\n    </testcase>\n",
                          xml_escape_attribute(it->second), gate, xml_escape_text(it->second));
    }
  }
  return fmt::format("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                     "<testsuites name=\"opcert compare\" tests=\"{0}\" failures=\"{1}\" errors=\"0\" skipped=\"0\" "
                     "time=\"0\">\n"
                     "  <testsuite name=\"{2} -&gt; {3}\" tests=\"{0}\" failures=\"{1}\" errors=\"0\" skipped=\"0\" "
                     "time=\"0\">\n"
                     "{4}  </testsuite>\n</testsuites>\n",
                     cases.size(), c.failures.size(), xml_escape_attribute(c.base_label),
                     xml_escape_attribute(c.new_label), body);
}

}  // namespace opcert
