#include "certify/bundle_consistency.h"

#include <fmt/format.h>

#include <array>
#include <charconv>
#include <map>
#include <tuple>
#include <optional>
#include <set>
#include <sstream>

#include "certify/bundle_checksums.h"
#include "certify/certificate_rule.h"
#include "certify/certification_bundle.h"
#include "certify/certification_plan.h"
#include "loader/file_digest.h"
#include "model/input_error.h"
#include "reports/report_reader.h"
#include "reports/results_jsonl.h"
#include "reports/run_summary.h"

namespace opcert {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr const char* kRecord = ResultsJsonl::kFileName;
constexpr const char* kPlanFile = "plan.json";
constexpr const char* kSummaryFile = "summary.md";

// A result's identity within a suite's run, as messages name it: "rows10 (paced.softmax.steady)",
// with its device (and rank) where the run chose devices, which holds one result per device.
std::string identity(const CaseResult& r) {
  std::string place = device_label(r.device, r.rank);
  if (place.empty() && r.rank) place = fmt::format("rank {}", *r.rank);
  return r.case_id + " (" + r.impl_key + (place.empty() ? "" : ", " + place) + ")";
}

std::map<std::string, std::vector<const CaseResult*>> by_identity(const std::vector<CaseResult>& results) {
  std::map<std::string, std::vector<const CaseResult*>> out;
  for (const auto& r : results) out[identity(r)].push_back(&r);
  return out;
}

// The folder of a suite's report, relative to the bundle; InputError when the manifest points
// outside the bundle (a report there would be checked by no checksum).
fs::path report_folder(const json& suite) {
  const json report = suite.value("report", json(nullptr));
  const fs::path rel = report.is_string() ? fs::path(report.get<std::string>()).lexically_normal() : fs::path();
  if (rel.empty() || rel.is_absolute() || *rel.begin() == "..")
    throw InputError(fmt::format("{}: suite {}: its report {} is not a file of the bundle", kManifestFile,
                                 suite.value("suite", json("?")).dump(), report.dump()));
  return rel.parent_path();
}

// report.json against results.jsonl, case by case.
void compare_cases(const std::string& folder, const std::vector<CaseResult>& recorded,
                   const std::vector<CaseResult>& reported, std::vector<std::string>& problems) {
  const auto in_record = by_identity(recorded), in_report = by_identity(reported);
  const std::string record = folder + "/" + kRecord, report = folder + "/report.json";
  for (const auto& [id, rs] : in_record) {
    if (rs.size() > 1) problems.push_back(fmt::format("{}: {} is recorded {} times", record, id, rs.size()));
    const auto it = in_report.find(id);
    const CaseResult& r = *rs.front();
    if (it == in_report.end()) {
      problems.push_back(fmt::format("{}: has no {}; {} records it {}", report, id, kRecord, status_name(r.status)));
      continue;
    }
    const CaseResult& other = *it->second.front();
    if (other.status != r.status)
      problems.push_back(fmt::format("{}: {} is {}; {} records it {}", report, id, status_name(other.status), kRecord,
                                     status_name(r.status)));
    if (other.backend != r.backend)
      problems.push_back(fmt::format("{}: {} is backend {}'s; {} records it as {}'s", report, id, other.backend, kRecord,
                                     r.backend));
  }
  for (const auto& [id, rs] : in_report) {
    if (rs.size() > 1) problems.push_back(fmt::format("{}: {} is listed {} times", report, id, rs.size()));
    if (!in_record.contains(id))
      problems.push_back(fmt::format("{}: has no {}; report.json has it {}", record, id, status_name(rs.front()->status)));
  }
}

// A count per status, after the total: what a file says (empty where it says nothing) or what the
// results give.
using Counts = std::array<std::optional<int64_t>, kAllStatuses.size() + 1>;

Counts counts_of(const StatusCounts& c) {
  Counts out;
  out[0] = c.total;
  for (std::size_t i = 0; i < kAllStatuses.size(); ++i) out[i + 1] = c.of(kAllStatuses[i]);
  return out;
}

// "says FAILED 0; results.jsonl gives FAILED 1" over the columns that differ; "" when none does.
std::string difference(const Counts& said, const Counts& recomputed) {
  std::string a, b;
  const auto text = [](const std::optional<int64_t>& n) { return n ? std::to_string(*n) : std::string("(none)"); };
  for (std::size_t i = 0; i < said.size(); ++i) {
    if (said[i] == recomputed[i]) continue;
    const std::string name = i == 0 ? "total" : std::string(status_name(kAllStatuses[i - 1]));
    a += fmt::format("{}{} {}", a.empty() ? "" : ", ", name, text(said[i]));
    b += fmt::format("{}{} {}", b.empty() ? "" : ", ", name, text(recomputed[i]));
  }
  return a.empty() ? "" : fmt::format("says {}; {} gives {}", a, kRecord, b);
}

// report.json's {"total": n, "counts": {"PASSED": n, ...}}.
Counts counts_in_json(const json& entry) {
  Counts c;
  if (!entry.is_object()) return c;
  if (const auto t = entry.find("total"); t != entry.end() && t->is_number_integer()) c[0] = t->get<int64_t>();
  const auto counts = entry.find("counts");
  if (counts == entry.end() || !counts->is_object()) return c;
  for (std::size_t i = 0; i < kAllStatuses.size(); ++i)
    if (const auto n = counts->find(std::string(status_name(kAllStatuses[i]))); n != counts->end() && n->is_number_integer())
      c[i + 1] = n->get<int64_t>();
  return c;
}

json member(const json& doc, const std::string& key) {
  return doc.is_object() && doc.contains(key) ? doc[key] : json(nullptr);
}

// report.json's `summary`, backend by backend and op by op, against what results.jsonl gives.
void check_report_summary(const std::string& folder, const json& doc, const RunReport& recorded,
                          std::vector<std::string>& problems) {
  const std::string file = folder + "/report.json";
  const json summary = member(doc, "summary");
  if (const auto d = difference(counts_in_json(summary), counts_of(count_all(recorded))); !d.empty())
    problems.push_back(fmt::format("{}: summary: {}", file, d));
  const json backends = member(summary, "backends");
  std::set<std::string> named;
  for (const auto& b : summarize_results(recorded)) {
    named.insert(b.backend);
    const json entry = member(backends, b.backend);
    if (const auto d = difference(counts_in_json(entry), counts_of(b.counts)); !d.empty())
      problems.push_back(fmt::format("{}: summary of {}: {}", file, b.backend, d));
    for (const auto& op : b.ops)
      if (const auto d = difference(counts_in_json(member(member(entry, "ops"), op.op)), counts_of(op.counts)); !d.empty())
        problems.push_back(fmt::format("{}: summary of {} {}: {}", file, b.backend, op.op, d));
  }
  if (backends.is_object())
    for (const auto& [name, entry] : backends.items())
      if (!named.contains(name) && counts_in_json(entry)[0].value_or(0) != 0)
        problems.push_back(fmt::format("{}: summary counts results of {}, which {} has none of", file, name, kRecord));
}

std::string trim_spaces(const std::string& s) {
  const auto first = s.find_first_not_of(' ');
  return first == std::string::npos ? "" : s.substr(first, s.find_last_not_of(' ') - first + 1);
}

// The cells of a Markdown table row ("| a | b |"), "\|" read back as "|".
std::vector<std::string> table_cells(const std::string& line) {
  std::vector<std::string> cells;
  std::string cell;
  for (std::size_t i = 1; i < line.size(); ++i) {
    if (line[i] == '\\' && i + 1 < line.size() && line[i + 1] == '|') {
      cell += line[++i];
    } else if (line[i] == '|') {
      cells.push_back(trim_spaces(cell));
      cell.clear();
    } else {
      cell += line[i];
    }
  }
  return cells;
}

// The counts of a report's summary.md "## Results" table, by "<backend> / <op>".
std::map<std::string, Counts> markdown_counts(const std::string& md) {
  std::map<std::string, Counts> rows;
  const auto start = md.find("\n## Results\n");
  if (start == std::string::npos) return rows;
  std::istringstream lines(md.substr(start + 1, md.find("\n## ", start + 1) - start));
  for (std::string line; std::getline(lines, line);) {
    if (!line.starts_with("|")) continue;
    const auto cells = table_cells(line);
    if (cells.size() != kAllStatuses.size() + 4 || cells[1] == "op" || cells[0].starts_with("---")) continue;
    Counts c;
    for (std::size_t i = 0; i < c.size(); ++i) {
      int64_t n = 0;
      const std::string& text = cells[2 + i];
      if (const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
          ec == std::errc() && end == text.data() + text.size())
        c[i] = n;
    }
    rows[cells[0] + " / " + cells[1]] = c;
  }
  return rows;
}

// A report's summary.md table against what results.jsonl gives, row by row.
void check_report_markdown(const std::string& folder, const std::string& md, const RunReport& recorded,
                           std::vector<std::string>& problems) {
  const std::string file = folder + "/" + kSummaryFile;
  auto rows = markdown_counts(md);
  for (const auto& b : summarize_results(recorded, true)) {
    const auto expect = [&](const std::string& op, const StatusCounts& counts) {
      const std::string row = summary_name(b) + " / " + op;
      const auto it = rows.find(row);
      if (it == rows.end()) {
        problems.push_back(fmt::format("{}: no row {}; {} gives {} result(s)", file, row, kRecord, counts.total));
        return;
      }
      if (const auto d = difference(it->second, counts_of(counts)); !d.empty())
        problems.push_back(fmt::format("{}: row {}: {}", file, row, d));
      rows.erase(it);
    };
    for (const auto& op : b.ops) expect(op.op, op.counts);
    if (b.ops.size() != 1) expect("all ops", b.counts);
  }
  for (const auto& [row, counts] : rows)
    problems.push_back(fmt::format("{}: row {} counts results {} has none of", file, row, kRecord));
}

// The manifest's entry of a suite against the tally of its results.
void check_manifest_suite(const json& s, const SuiteTally& t, const RunReport& report, std::vector<std::string>& problems) {
  const std::string what = fmt::format("{}: suite {} (seed {})", kManifestFile, t.planned.suite, t.planned.seed);
  if (member(s, "results") != json(t.results))
    problems.push_back(fmt::format("{}: results {}; {} gives {}", what, member(s, "results").dump(), kRecord, t.results));
  if (member(s, "failing") != json(t.failing))
    problems.push_back(fmt::format("{}: failing {}; {} gives {}", what, member(s, "failing").dump(), kRecord, t.failing));
  if (member(s, "counts") != json(t.counts))
    problems.push_back(fmt::format("{}: counts {}; {} gives {}", what, member(s, "counts").dump(), kRecord,
                                   json(t.counts).dump()));
  if (t.exit_code != report.exit_code)
    problems.push_back(fmt::format("{}: exit code {}; its report.json says {}", what, t.exit_code, report.exit_code));
}

// The statuses that fail the certificate: plan.json's, which the manifest must repeat.
std::set<Status> fail_statuses_of(const fs::path& bundle, const json& manifest, std::vector<std::string>& problems) {
  const json plan = member(manifest, "plan");
  std::set<Status> claimed;
  json listed = member(plan, "fail_statuses");
  for (const auto& s : listed.is_array() ? listed : json::array())
    if (const auto status = s.is_string() ? parse_status(s.get<std::string>()) : std::nullopt) claimed.insert(*status);
  if (!fs::is_regular_file(bundle / kPlanFile)) return claimed;  // the checksums name it missing
  try {
    const CertificationPlan read = load_certification_plan((bundle / kPlanFile).string());
    if (read.fail_statuses != claimed || !listed.is_array() || listed.size() != claimed.size()) {
      json in_plan = json::array();
      for (const Status st : read.fail_statuses) in_plan.push_back(std::string(status_name(st)));
      problems.push_back(fmt::format("{}: plan.fail_statuses {}; {} says {}", kManifestFile, listed.dump(), kPlanFile,
                                     in_plan.dump()));
    }
    if (const std::string sha = sha256_file_hex(read.path); member(plan, "sha256") != json(sha))
      problems.push_back(fmt::format("{}: SHA-256 {} is not the plan's {} names ({})", kPlanFile, sha, kManifestFile,
                                     member(plan, "sha256").dump()));
    return read.fail_statuses;
  } catch (const std::exception& e) {
    problems.push_back(fmt::format("{}: {}", kPlanFile, e.what()));
    return claimed;
  }
}

// The bundle's summary.md: its verdict line and each suite's row, as certify writes them.
void check_bundle_summary(const std::string& md, const std::vector<SuiteTally>& tallies, const Certificate& cert,
                          std::vector<std::string>& problems) {
  std::vector<std::string> lines;
  std::istringstream in(md);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  const auto line_starting = [&](const std::string& prefix) -> const std::string* {
    for (const auto& l : lines)
      if (l.starts_with(prefix)) return &l;
    return nullptr;
  };
  const std::string verdict = summary_verdict_line(cert);
  const std::string* said = line_starting("**Certified**");
  if (said == nullptr) said = line_starting("**Not certified**");
  if (said == nullptr || *said != verdict)
    problems.push_back(fmt::format("{}: says {}; {} gives {}", kSummaryFile, said ? "'" + *said + "'" : "no verdict",
                                   kRecord, "'" + verdict + "'"));
  for (const auto& t : tallies) {
    const std::string row = summary_row(t);
    const std::string* got = line_starting(fmt::format("| {} | {} |", t.planned.suite, t.planned.seed));
    if (got == nullptr || *got != row)
      problems.push_back(fmt::format("{}: suite {} (seed {}): {}; {} gives '{}'", kSummaryFile, t.planned.suite,
                                     t.planned.seed, got ? "says '" + *got + "'" : "no row", kRecord, row));
  }
}

// Each chosen device's own verdict in the manifest (`failing_results`, `verdict`) is what its
// recorded results give.
void check_manifest_devices(const json& manifest, const std::vector<SuiteTally>& tallies,
                            std::vector<std::string>& problems) {
  std::map<std::tuple<int, std::string, int>, int> failing;
  for (const auto& t : tallies)
    for (const auto& [key, device] : t.devices) failing[key] += device.second;
  const json devices = member(manifest, "devices");
  if (!devices.is_array()) return;
  for (const auto& d : devices) {
    if (!d.is_object() || !d.contains("verdict")) continue;  // the untagged first device has no verdict of its own
    const std::tuple<int, std::string, int> key{d.value("rank", 0), d.value("host", ""), d.value("index", -1)};
    const auto it = failing.find(key);
    const std::string name = fmt::format("device {} of host {}", d.value("index", -1), d.value("host", ""));
    if (it == failing.end()) {
      problems.push_back(fmt::format("{}: {} has no result in {}", kManifestFile, name, kRecord));
      continue;
    }
    const std::string verdict = it->second == 0 ? "pass" : "fail";
    if (d.value("failing_results", -1) != it->second || d.value("verdict", "") != verdict)
      problems.push_back(fmt::format("{}: {}: failing_results {}, verdict {}; {} gives {}, {}", kManifestFile, name,
                                     member(d, "failing_results").dump(), member(d, "verdict").dump(), kRecord, it->second,
                                     verdict));
  }
}

}  // namespace

std::vector<CaseResult> recorded_results(const fs::path& bundle, const json& manifest_suite) {
  const fs::path file = report_folder(manifest_suite) / kRecord;
  bool cut = false;
  std::vector<CaseResult> results;
  try {
    results = read_results_jsonl(bundle / file, &cut);
  } catch (const std::runtime_error& e) {
    throw InputError(fmt::format("{}: {}", file.generic_string(), e.what()));
  }
  if (cut) throw InputError(fmt::format("{}: its last line is cut off", file.generic_string()));
  return results;
}

std::vector<std::string> consistency_problems(const fs::path& bundle, const json& manifest) {
  std::vector<std::string> problems;
  if (!manifest.is_object()) return problems;  // verify says it is not readable
  const std::set<Status> fail_statuses = fail_statuses_of(bundle, manifest, problems);
  const json name = member(member(manifest, "backend"), "name");
  const std::string backend = name.is_string() ? name.get<std::string>() : "";
  std::vector<SuiteTally> tallies;
  bool every_suite_read = true;
  const json suites = member(manifest, "suites");
  for (const auto& s : suites.is_array() ? suites : json::array()) {
    try {
      const fs::path folder = report_folder(s);
      const std::string shown = folder.generic_string();
      RunReport report;
      std::vector<CaseResult> recorded;
      try {
        recorded = recorded_results(bundle, s);
        const ReportDocument doc = read_report_document(bundle / folder / "report.json");
        report = run_report_from_json(doc.doc, shown + "/report.json");
        compare_cases(shown, recorded, report.results, problems);
        report.results = recorded;  // the run's own facts (its backends, the peer), with what it recorded
        check_report_summary(shown, doc.doc, report, problems);
      } catch (const std::exception& e) {
        problems.push_back(e.what());
        every_suite_read = false;
        continue;
      }
      if (fs::exists(bundle / folder / kSummaryFile))  // else the checksums name it missing
        check_report_markdown(shown, read_bundle_file(bundle / folder / kSummaryFile), report, problems);
      const SuiteTally tally = tally_suite({s.at("suite").get<std::string>(), s.at("seed").get<uint64_t>()},
                                           s.at("exit_code").get<int>(), recorded, backend, fail_statuses);
      check_manifest_suite(s, tally, report, problems);
      tallies.push_back(tally);
    } catch (const std::exception& e) {
      problems.push_back(fmt::format("{}: suite {}: {}", kManifestFile, s.dump().substr(0, 80), e.what()));
      every_suite_read = false;
    }
  }
  if (!every_suite_read) return problems;  // a verdict over part of the suites would only add noise
  const Certificate cert = judge_certificate(tallies, backend);
  if (member(manifest, "verdict") != json(verdict_text(cert)))
    problems.push_back(fmt::format("{}: verdict {}; {} gives \"{}\"{}", kManifestFile, member(manifest, "verdict").dump(),
                                   kRecord, verdict_text(cert), cert.reason.empty() ? "" : " (" + cert.reason + ")"));
  else if (member(manifest, "reason") != json(cert.reason))
    problems.push_back(fmt::format("{}: reason {}; {} gives \"{}\"", kManifestFile, member(manifest, "reason").dump(),
                                   kRecord, cert.reason));
  if (member(manifest, "results") != json(cert.results))
    problems.push_back(fmt::format("{}: results {}; {} gives {}", kManifestFile, member(manifest, "results").dump(),
                                   kRecord, cert.results));
  if (member(manifest, "failing_results") != json(cert.failing_results))
    problems.push_back(fmt::format("{}: failing_results {}; {} gives {}", kManifestFile,
                                   member(manifest, "failing_results").dump(), kRecord, cert.failing_results));
  if (fs::exists(bundle / kSummaryFile)) check_bundle_summary(read_bundle_file(bundle / kSummaryFile), tallies, cert, problems);
  check_manifest_devices(manifest, tallies, problems);
  return problems;
}

}  // namespace opcert
