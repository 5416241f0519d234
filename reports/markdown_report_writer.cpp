// summary.md: what a person reads first. The run's facts, a table of counts per backend and op,
// then every case that did not pass, each with its repro line.
#include <fmt/format.h>

#include <algorithm>

#include "reports/coverage.h"
#include "reports/number_format.h"
#include "reports/phase_profile.h"
#include "reports/report_writer.h"
#include "reports/result_text.h"
#include "reports/run_summary.h"

namespace opcert {
namespace {

// Newlines and tabs become spaces; other control characters (a terminal colour code in a backend's
// message) become visible "\xHH" rather than invisible bytes in the page.
std::string one_line(std::string_view s) {
  std::string out;
  for (const char c : s) {
    if (c == '\n' || c == '\r' || c == '\t')
      out += ' ';
    else if (static_cast<unsigned char>(c) < 0x20)
      out += fmt::format("\\x{:02X}", static_cast<unsigned>(static_cast<unsigned char>(c)));
    else
      out += c;
  }
  return out;
}

// A code span that survives backticks inside the text (CommonMark: a longer fence of backticks).
std::string code(std::string_view s) {
  const std::string text = one_line(s);
  size_t longest = 0, run = 0;
  for (const char c : text) {
    run = c == '`' ? run + 1 : 0;
    longest = std::max(longest, run);
  }
  const std::string fence(longest + 1, '`');
  const bool pad = !text.empty() && (text.front() == '`' || text.back() == '`');
  return fence + (pad ? " " : "") + text + (pad ? " " : "") + fence;
}

std::string cell(std::string_view s) {
  std::string out;
  for (const char c : one_line(s)) {
    if (c == '|') out += '\\';
    out += c;
  }
  return out;
}

std::string or_none(const std::string& s) { return s.empty() ? "none" : s; }

std::string facts(const RunReport& report) {
  std::string md;
  if (!report.complete) md += "> **Interrupted run:** the results below are those measured before it stopped.\n\n";
  md += fmt::format("- Suite: {}", code(report.suite));
  if (!report.suite_sha256.empty()) md += fmt::format(" (sha256 {})", code(report.suite_sha256));
  md += "\n";
  md += fmt::format("- Seed: {}\n", report.seed);
  md += fmt::format("- Platform: {}\n", report.platform.empty() ? "none" : code(report.platform));
  md += fmt::format("- Peer: {}\n", report.peer.empty() ? "none" : code(report.peer));
  md += fmt::format("- opcert: {} (commit {})\n", or_none(report.opcert_version),
                    or_none(environment_string(report, "git_commit")));
  md += fmt::format("- When: {} to {}\n", or_none(report.started_at), or_none(report.finished_at));
  if (const auto host = environment_string(report, "host"); !host.empty()) md += fmt::format("- Host: {}\n", code(host));
  if (!report.command_line.empty()) md += fmt::format("- Command: {}\n", code(report.command_line));
  md += fmt::format("- Exit code: {}\n", report.exit_code);
  for (const auto& b : report.backends) {
    md += fmt::format("- Backend {}: version {}, {}", code(b.name), or_none(b.version), or_none(b.source));
    if (!b.library_path.empty()) md += fmt::format(", {}", code(b.library_path));
    if (!b.sha256.empty()) md += fmt::format(", sha256 {}", code(b.sha256));
    if (b.peer) md += " (alignment peer, not gated)";
    md += "\n";
  }
  return md;
}

std::string counts_row(const std::string& backend, const std::string& op, const StatusCounts& c,
                       const std::optional<double>& worst) {
  std::string row = fmt::format("| {} | {} | {} |", cell(backend), cell(op), c.total);
  for (const Status s : kAllStatuses) row += fmt::format(" {} |", c.of(s));
  return row + fmt::format(" {} |\n", text_number(worst));
}

std::string table(const RunReport& report) {
  std::string md =
      "| backend | op | total | passed | failed | mistrusted | skipped | error | crashed | timeout | worst alignment |\n"
      "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n";
  for (const auto& b : summarize_results(report, true)) {
    const std::string name = summary_name(b);
    for (const auto& op : b.ops) md += counts_row(name, op.op, op.counts, op.worst_alignment_ratio);
    if (b.ops.size() != 1) md += counts_row(name, "all ops", b.counts, b.worst_alignment_ratio);
  }
  return md;
}

// Per backend: the plan's (op, dtype) pairs it ran a case of, the others and why, its skips by class.
std::string coverage_section(const RunReport& report) {
  const auto coverage = coverage_of(report);
  if (coverage.empty()) return "";
  std::string md =
      "\n## Coverage\n\nThe (op, dtype) pairs of the plan each backend ran at least one case of, the others "
      "with why, and its skipped cases grouped by reason.\n\n"
      "| backend | pairs run | not covered | skipped |\n|---|---:|---|---|\n";
  for (const auto& c : coverage) {
    const std::string missing = missing_pairs_text(c.missing()), skips = skip_groups_text(c.skipped);
    md += fmt::format("| {} | {} of {} | {} | {} |\n", cell(c.peer ? c.backend + " (peer)" : c.backend), c.covered(),
                      c.pairs.size(), missing.empty() ? "none" : cell(missing), skips.empty() ? "none" : cell(skips));
  }
  return md;
}

std::string case_entry(const CaseResult& r) {
  std::string md = fmt::format("- **{}** {} {} {}", status_name(r.status), code(r.backend), code(r.op), code(r.case_id));
  if (!r.impl_key.empty()) md += fmt::format(" (impl {})", code(r.impl_key));
  if (r.device) {
    md += fmt::format(" on {} ({}", device_label(r.device, r.rank), code(r.device->name));
    if (!r.device->host.empty()) md += fmt::format(", host {}", code(r.device->host));
    md += fmt::format(", UUID {}, PCI {})", code(identity_text(r.device->uuid)), code(identity_text(r.device->pci_bus_id)));
  } else if (r.rank) {
    md += fmt::format(" on rank {}", *r.rank);
  }
  md += "\n";
  if (!r.message.empty()) md += fmt::format("  - message: {}\n", code(r.message));
  if (!r.metrics.empty()) {
    if (const auto worst = describe_worst_element(r.metrics.front()); !worst.empty())
      md += fmt::format("  - worst element: {}\n", code(worst));
  }
  if (r.out_of_bounds_write) md += "  - wrote past the end of an output buffer\n";
  if (r.alignment_ratio) md += fmt::format("  - alignment ratio: {}\n", text_number(r.alignment_ratio));
  if (!r.repro.empty()) md += fmt::format("  - repro: {}\n", code(r.repro));
  return md;
}

std::string markdown_document(const RunReport& report) {
  std::string md = "# opcert conformance report\n\n" + facts(report) + "\n## Results\n\n" + table(report) + coverage_section(report);
  std::string failing;
  std::vector<std::pair<std::string, std::string>> skipped_by_reason;  // class, its entries; in order of appearance
  for (const auto& r : report.results) {
    if (r.status == Status::kPassed) continue;
    if (r.status != Status::kSkipped) {
      failing += case_entry(r);
      continue;
    }
    auto it = std::find_if(skipped_by_reason.begin(), skipped_by_reason.end(), [&](const auto& g) { return g.first == r.skip_reason; });
    if (it == skipped_by_reason.end()) it = skipped_by_reason.insert(skipped_by_reason.end(), {r.skip_reason, ""});
    it->second += case_entry(r);
  }
  std::string skipped;
  for (const auto& [reason, entries] : skipped_by_reason)
    skipped += fmt::format("### {}\n\n{}\n", skip_reason::phrase(reason), entries);
  md += "\n## Cases that did not pass\n\n" + (failing.empty() ? std::string("None.\n") : failing);
  if (!skipped.empty()) md += "\n## Skipped cases\n\n" + skipped;
  return md + profile_markdown(report);
}

class MarkdownReportWriter final : public ReportWriter {
 public:
  std::string file_name() const override { return "summary.md"; }
  void write(const RunReport& report, const std::filesystem::path& out_dir) const override {
    write_file_atomically(out_dir / file_name(), markdown_document(report));
  }
};

}  // namespace

std::unique_ptr<ReportWriter> make_markdown_report_writer() { return std::make_unique<MarkdownReportWriter>(); }

}  // namespace opcert
