#include "compare/comparison_text.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdlib>

#include "reports/number_format.h"
#include "util/duration.h"
#include "util/significant_digits.h"

namespace opcert {
namespace {

std::string status_text(const std::optional<Status>& s) { return s ? std::string(status_name(*s)) : "(none)"; }

std::string seconds_text(const std::optional<double>& s) { return s ? format_duration(*s) : "-"; }

std::string change_text(const std::optional<double>& change) {
  return change ? fmt::format("{:+.1f}%", 100 * *change) : "-";
}

std::string p_text(const std::optional<double>& p) { return p ? fmt::format("{:.3g}", *p) : "-"; }

std::string ratio_pair(const std::optional<double>& a, const std::optional<double>& b) {
  if (!a && !b) return "-";
  const auto one = [](const std::optional<double>& v) { return v ? three_digits(*v) + "x" : std::string("-"); };
  return one(a) + " -> " + one(b);
}

std::string figure(const std::optional<double>& v) { return v ? text_number(*v, 3) : "-"; }

// A transition's word: what a reader scans for.
std::string transition(const StatusChange& s) {
  if (s.regression) return "REGRESSED";
  if (!s.base) return "new";
  if (!s.now) return "gone";
  if (*s.now == Status::kPassed) return "fixed";
  return "changed";
}

class Painter {
 public:
  explicit Painter(bool on) : on_(on) {}
  std::string red(const std::string& s) const { return on_ ? "\033[31m" + s + "\033[0m" : s; }
  std::string green(const std::string& s) const { return on_ ? "\033[32m" + s + "\033[0m" : s; }
  std::string bold(const std::string& s) const { return on_ ? "\033[1m" + s + "\033[0m" : s; }

 private:
  bool on_;
};

std::string verdict_line(const Comparison& c) {
  std::string gates;
  for (const auto& g : c.gates) gates += (gates.empty() ? "" : ", ") + g;
  if (c.mode == "backends") return "";
  if (c.failures.empty()) return fmt::format("no gate failed ({})", gates.empty() ? "none on" : gates);
  return fmt::format("{} gate failure(s) ({} on)", c.failures.size(), gates);
}

}  // namespace

bool stdout_wants_color() {
  const char* no_color = std::getenv("NO_COLOR");
  return isatty(STDOUT_FILENO) == 1 && (no_color == nullptr || *no_color == '\0');
}

std::string comparison_text(const Comparison& c, bool color) {
  const Painter paint(color);
  std::string out;
  if (c.mode == "backends") {
    out += paint.bold(fmt::format("opcert compare: {} (A) against {} (B)", c.base_label, c.new_label)) + "\n";
    out += fmt::format("{:<12} {:<12} {:>5} {:>10} {:>10} {:>13} {:>13}\n", "op", "dtype", "cases", "B/A time",
                       "passed A/B", "worst align A", "worst align B");
    for (const auto& s : c.pair_summaries)
      out += fmt::format("{:<12} {:<12} {:>5} {:>10} {:>10} {:>13} {:>13}\n", s.op, s.dtype, s.cases,
                         s.geomean_time_ratio ? three_digits(*s.geomean_time_ratio) + "x" : "-",
                         fmt::format("{}/{}", s.passed_a, s.passed_b), figure(s.worst_alignment_a),
                         figure(s.worst_alignment_b));
    out += "\n";
    for (const auto& p : c.pairs)
      out += fmt::format("{}  {} {} {}  {} {} {}  B/A {}\n", p.case_id, p.impl_a, status_text(p.status_a),
                         seconds_text(p.seconds_a), p.impl_b, status_text(p.status_b), seconds_text(p.seconds_b),
                         p.time_ratio ? three_digits(*p.time_ratio) + "x" : "-");
    for (const auto& n : c.notes) out += "note: " + n + "\n";
    return out;
  }
  out += paint.bold(fmt::format("opcert compare: {} -> {}", c.base_label, c.new_label)) + "\n";
  if (!c.environment.empty()) {
    out += fmt::format("environment: {} difference(s)\n", c.environment.size());
    for (const auto& e : c.environment) out += fmt::format("  {}: {} -> {}\n", e.what, e.base, e.now);
  }
  out += fmt::format("status: {} changed, {} unchanged\n", c.statuses.size(), c.unchanged_statuses);
  for (const auto& s : c.statuses) {
    const std::string word = transition(s);
    const std::string shown = s.regression ? paint.red(word) : word == "fixed" ? paint.green(word) : word;
    out += fmt::format("  {:<9} {}  {}  {} -> {}{}{}\n", shown, s.case_id, s.impl_key, status_text(s.base),
                       status_text(s.now), s.message.empty() ? "" : ": " + s.message, s.peer ? " (peer)" : "");
  }
  if (!c.drifts.empty()) {
    out += fmt::format("alignment: {} result(s) moved more than 5%\n", c.drifts.size());
    for (const auto& d : c.drifts)
      out += fmt::format("  {}  {}  ratio {} -> {}, rmse {} -> {}  ({:.3g}x){}\n", d.case_id, d.impl_key,
                         figure(d.base_ratio), figure(d.new_ratio), figure(d.base_rmse), figure(d.new_rmse), d.growth,
                         d.beyond ? "  " + paint.red("BEYOND") : "");
  }
  if (!c.timings.empty()) {
    out += fmt::format("timing: {} row(s)\n", c.timings.size());
    out += fmt::format("  {:<44} {:<26} {:>11} {:>11} {:>8} {:>7} {:>10}  {}\n", "case", "impl", "base", "new", "change",
                       "p", "verdict", "vs peer");
    for (const auto& t : c.timings) {
      std::string verdict = verdict_name(t.verdict);
      if (t.verdict == TimingVerdict::kSlower && !t.peer) verdict = paint.red(verdict);
      if (t.verdict == TimingVerdict::kFaster) verdict = paint.green(verdict);
      std::string extra;
      if (t.base.busbw || t.now.busbw) extra += fmt::format("  busbw {} -> {} GB/s", figure(t.base.busbw), figure(t.now.busbw));
      if (t.base.sm_clock_mhz && t.now.sm_clock_mhz && *t.base.sm_clock_mhz != *t.now.sm_clock_mhz)
        extra += fmt::format("  SM {} -> {} MHz", *t.base.sm_clock_mhz, *t.now.sm_clock_mhz);
      if (t.base.conditions != t.now.conditions && !t.note.empty()) extra += "  (" + t.note.substr(0, t.note.find(';')) + ")";
      out += fmt::format("  {:<44} {:<26} {:>11} {:>11} {:>8} {:>7} {:>10}  {}{}\n", t.case_id, t.impl_key,
                         seconds_text(t.base.seconds), seconds_text(t.now.seconds), change_text(t.change),
                         p_text(t.p_value), verdict, ratio_pair(t.base.peer_ratio, t.now.peer_ratio), extra);
    }
  }
  for (const auto& n : c.notes) out += "note: " + n + "\n";
  for (const auto& f : c.failures)
    out += fmt::format("{} {} {} {}: {}\n", paint.red("FAIL"), f.gate, f.case_id, f.impl_key, f.what);
  out += (c.failures.empty() ? paint.green(verdict_line(c)) : paint.red(verdict_line(c))) + "\n";
  return out;
}

std::string comparison_markdown(const Comparison& c) {
  const auto cell = [](std::string s) {
    for (std::size_t at = s.find('|'); at != std::string::npos; at = s.find('|', at + 2)) s.replace(at, 1, "\\|");
    return s;
  };
  std::string out;
  if (c.mode == "backends") {
    out += fmt::format("### opcert compare: `{}` (A) against `{}` (B)\n\n", c.base_label, c.new_label);
    out += "| op | dtype | cases | B/A time (geomean) | passed A / B | worst alignment A | worst alignment B |\n";
    out += "|---|---|---|---|---|---|---|\n";
    for (const auto& s : c.pair_summaries)
      out += fmt::format("| {} | {} | {} | {} | {} / {} | {} | {} |\n", s.op, s.dtype, s.cases,
                         s.geomean_time_ratio ? three_digits(*s.geomean_time_ratio) + "x" : "-", s.passed_a,
                         s.passed_b, figure(s.worst_alignment_a), figure(s.worst_alignment_b));
    for (const auto& n : c.notes) out += "\n> " + cell(n) + "\n";
    return out;
  }
  out += fmt::format("### opcert compare: `{}` → `{}`\n\n", c.base_label, c.new_label);
  out += (c.failures.empty() ? "**Passed**: " : "**Failed**: ") + verdict_line(c) + "\n\n";
  if (!c.failures.empty()) {
    out += "| gate | case | implementation | what |\n|---|---|---|---|\n";
    for (const auto& f : c.failures)
      out += fmt::format("| {} | `{}` | `{}` | {} |\n", f.gate, f.case_id, f.impl_key, cell(f.what));
    out += "\n";
  }
  if (!c.statuses.empty()) {
    out += fmt::format("<details><summary>Status: {} changed, {} unchanged</summary>\n\n", c.statuses.size(),
                       c.unchanged_statuses);
    out += "| | case | implementation | base | new | reason |\n|---|---|---|---|---|---|\n";
    for (const auto& s : c.statuses)
      out += fmt::format("| {} | `{}` | `{}` | {} | {} | {} |\n", transition(s), s.case_id, s.impl_key,
                         status_text(s.base), status_text(s.now), cell(s.message));
    out += "\n</details>\n\n";
  }
  if (!c.timings.empty()) {
    out += fmt::format("<details><summary>Timing: {} row(s)</summary>\n\n", c.timings.size());
    out += "| case | implementation | base | new | change | p | verdict | vs peer |\n|---|---|---|---|---|---|---|---|\n";
    for (const auto& t : c.timings)
      out += fmt::format("| `{}` | `{}` | {} | {} | {} | {} | {} | {} |\n", t.case_id, t.impl_key,
                         seconds_text(t.base.seconds), seconds_text(t.now.seconds), change_text(t.change),
                         p_text(t.p_value), verdict_name(t.verdict), ratio_pair(t.base.peer_ratio, t.now.peer_ratio));
    out += "\n</details>\n\n";
  }
  if (!c.environment.empty()) {
    out += "<details><summary>Environment differences</summary>\n\n| what | base | new |\n|---|---|---|\n";
    for (const auto& e : c.environment) out += fmt::format("| {} | {} | {} |\n", cell(e.what), cell(e.base), cell(e.now));
    out += "\n</details>\n\n";
  }
  for (const auto& n : c.notes) out += "> " + cell(n) + "\n";
  return out;
}

}  // namespace opcert
