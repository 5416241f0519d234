#include "reports/progress.h"

#include <fmt/format.h>
#include <sys/ioctl.h>
#include <unistd.h>

namespace opcert {
namespace {

std::size_t terminal_width(std::FILE* out) {
  winsize ws{};
  if (ioctl(fileno(out), TIOCGWINSZ, &ws) == 0 && ws.ws_col > 20) return ws.ws_col;
  return 80;
}

bool shows_details(Status s) { return s != Status::kPassed && s != Status::kSkipped; }

}  // namespace

std::optional<ProgressMode> parse_progress_mode(std::string_view text) {
  if (text == "auto") return ProgressMode::kAuto;
  if (text == "bar") return ProgressMode::kBar;
  if (text == "plain") return ProgressMode::kPlain;
  if (text == "quiet") return ProgressMode::kQuiet;
  return std::nullopt;
}

std::string progress_line(std::size_t done, std::size_t total, const CaseResult& r, bool peer, const std::string& eta) {
  std::string line = fmt::format("[{}/{}{}{}] {} {} {} {} {:.1f} ms", done, total, eta.empty() ? "" : " ", eta, r.backend,
                                 r.impl_key, r.case_id, status_name(r.status), r.duration_ms);
  if (peer) line += " (peer)";
  if (r.status == Status::kSkipped && !r.message.empty()) line += ": " + r.message;
  return line;
}

Progress::Progress(ProgressMode mode, std::FILE* out, std::size_t total)
    : out_(out), quiet_(mode == ProgressMode::kQuiet), total_(total) {
  bar_ = mode == ProgressMode::kBar || (mode == ProgressMode::kAuto && isatty(fileno(out)) == 1);
}

void Progress::starting(const std::string& backend, const std::string& impl_key, const std::string& case_id) {
  current_ = backend + " " + case_id + " (" + impl_key + ")";  // a narrow terminal cuts the key, not the case
  if (bar_) redraw();
}

void Progress::finished(const CaseResult& r, bool peer) {
  ++done_;
  if (r.status == Status::kSkipped) ++skipped_;
  if (!peer && status_fails_run(r.status)) ++failed_;
  if (quiet_) return;
  if (bar_) clear_bar();
  if (!bar_ || shows_details(r.status)) fmt::print(out_, "{}\n", progress_line(done_, total_, r, peer, eta_.text(done_, total_)));
  if (shows_details(r.status)) {
    if (!r.message.empty()) fmt::print(out_, "    {}\n", r.message);
    if (!r.repro.empty()) fmt::print(out_, "    repro: {}\n", r.repro);
  }
  if (bar_) redraw();
  std::fflush(out_);
}

void Progress::note(const std::string& line) {
  if (bar_) clear_bar();
  fmt::print(out_, "{}\n", line);
  if (bar_) redraw();
  std::fflush(out_);
}

void Progress::done() {
  if (bar_) clear_bar();
  std::fflush(out_);
}

void Progress::clear_bar() { fmt::print(out_, "\r\x1b[K"); }

void Progress::redraw() {
  const std::size_t width = terminal_width(out_);
  constexpr std::size_t kBarCells = 24;
  const std::size_t filled = total_ == 0 ? kBarCells : done_ * kBarCells / total_;
  const std::string eta = eta_.text(done_, total_);
  std::string line = fmt::format("[{}{}] {}/{}  failed {}  skipped {}  {}{}{}", std::string(filled, '#'),
                                 std::string(kBarCells - filled, '.'), done_, total_, failed_, skipped_, eta,
                                 eta.empty() ? "" : "  ", current_);
  if (line.size() >= width) line.resize(width - 1);
  fmt::print(out_, "\r{}\x1b[K", line);
  std::fflush(out_);
}

}  // namespace opcert
