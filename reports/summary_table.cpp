#include "reports/summary_table.h"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "reports/coverage.h"
#include "reports/number_format.h"
#include "reports/run_summary.h"

namespace opcert {
namespace {

struct Row {
  std::string backend, op;
  StatusCounts counts;
  std::string worst_alignment;
};

const char* status_color(Status s) {
  switch (s) {
    case Status::kPassed: return "\x1b[32m";
    case Status::kMistrusted:
    case Status::kSkipped: return "\x1b[33m";
    default: return "\x1b[31m";
  }
}

// Pads first, then colours: escape codes take no columns on screen.
std::string right(const std::string& text, size_t width, const char* color = nullptr) {
  const std::string padded = fmt::format("{:>{}}", text, width);
  return color == nullptr ? padded : std::string(color) + padded + "\x1b[0m";
}

// Per backend, how many (op, dtype) pairs of the plan it ran, the others with why, and its skips by class.
std::string coverage_lines(const RunReport& report) {
  const auto coverage = coverage_of(report);
  if (coverage.empty()) return "";
  std::string out = "\ncoverage (op x dtype pairs of the plan with a case run):\n";
  for (const auto& c : coverage) {
    out += fmt::format("  {}{}: {} of {}", c.backend, c.peer ? " (peer)" : "", c.covered(), c.pairs.size());
    if (const auto missing = missing_pairs_text(c.missing()); !missing.empty()) out += "; not covered: " + missing;
    if (const auto skips = skip_groups_text(c.skipped); !skips.empty()) out += "; skipped: " + skips;
    out += "\n";
  }
  return out;
}

}  // namespace

std::string console_summary_table(const RunReport& report, bool color) {
  std::vector<Row> rows;
  for (const auto& b : summarize_results(report, true)) {
    const std::string name = summary_name(b);
    for (const auto& op : b.ops) rows.push_back({name, op.op, op.counts, text_number(op.worst_alignment_ratio)});
    if (b.ops.size() != 1) rows.push_back({name, "all ops", b.counts, text_number(b.worst_alignment_ratio)});
  }

  const std::vector<std::string> status_headers{"passed", "failed", "mistrusted", "skipped", "error", "crashed", "timeout"};
  size_t backend_w = std::string("backend").size(), op_w = std::string("op").size(), align_w = std::string("worst align").size();
  size_t total_w = std::string("total").size();
  std::vector<size_t> status_w;
  for (const auto& h : status_headers) status_w.push_back(h.size());
  for (const auto& r : rows) {
    backend_w = std::max(backend_w, r.backend.size());
    op_w = std::max(op_w, r.op.size());
    align_w = std::max(align_w, r.worst_alignment.size());
    total_w = std::max(total_w, std::to_string(r.counts.total).size());
    for (size_t i = 0; i < kAllStatuses.size(); ++i)
      status_w[i] = std::max(status_w[i], std::to_string(r.counts.by_status[i]).size());
  }

  std::string header = fmt::format("{:<{}}  {:<{}}  {}", "backend", backend_w, "op", op_w, right("total", total_w));
  for (size_t i = 0; i < status_headers.size(); ++i) header += "  " + right(status_headers[i], status_w[i]);
  header += "  " + right("worst align", align_w);
  std::string out = header + "\n" + std::string(header.size(), '-') + "\n";
  for (const auto& r : rows) {
    std::string line = fmt::format("{:<{}}  {:<{}}  {}", r.backend, backend_w, r.op, op_w,
                                   right(std::to_string(r.counts.total), total_w));
    for (size_t i = 0; i < kAllStatuses.size(); ++i) {
      const int64_t n = r.counts.by_status[i];
      line += "  " + right(std::to_string(n), status_w[i], color && n > 0 ? status_color(kAllStatuses[i]) : nullptr);
    }
    line += "  " + right(r.worst_alignment, align_w);
    out += line + "\n";
  }
  return out + coverage_lines(report);
}

}  // namespace opcert
