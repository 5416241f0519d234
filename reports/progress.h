// What a run shows while it goes: on a terminal one progress line redrawn in place, otherwise one
// plain line per finished case. A case that did not pass (nor was skipped) always gets its own
// lines with the status, the message and the repro command.
#pragma once

#include <cstddef>
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>

#include "model/case_result.h"
#include "reports/eta.h"

namespace opcert {

/// kQuiet: notes only, no line per case (`opcert selftest`, whose mutants fail by design).
enum class ProgressMode { kAuto, kBar, kPlain, kQuiet };

/// "auto", "bar", "plain", "quiet"; nullopt for anything else.
std::optional<ProgressMode> parse_progress_mode(std::string_view text);

/// "[17/142] cpu cpu.gemm.blocked gemm.bf16.m64n48k80.nk PASSED 3.1 ms" (peers get " (peer)");
/// with an `eta` ("eta 3m12s", reports/eta.h) "[17/142 eta 3m12s] ...".
std::string progress_line(std::size_t done, std::size_t total, const CaseResult& result, bool peer,
                          const std::string& eta = "");

class Progress {
 public:
  /// kAuto becomes kBar when `out` is a terminal.
  Progress(ProgressMode mode, std::FILE* out, std::size_t total);

  bool bar() const { return bar_; }
  /// A job is about to run (shown on the bar).
  void starting(const std::string& backend, const std::string& impl_key, const std::string& case_id);
  /// A job has its result.
  void finished(const CaseResult& result, bool peer);
  /// A line of its own (worker restarts, warnings), printed above the bar.
  void note(const std::string& line);
  /// Clears the bar; call once at the end.
  void done();

  std::size_t failed() const { return failed_; }

 private:
  void redraw();
  void clear_bar();

  std::FILE* out_;
  bool bar_ = false;
  bool quiet_ = false;
  std::size_t total_ = 0, done_ = 0, failed_ = 0, skipped_ = 0;
  std::string current_;
  Eta eta_;
};

}  // namespace opcert
