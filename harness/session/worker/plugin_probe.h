// The plugin probe: discovery's steps that run a plugin's code (loader/plugin_guard.h) taken
// first in a child process, opcert's plugin probe program (libexec/opcert/opcert-plugin-probe,
// cli/plugin_probe_main.cpp: opcert without LibTorch or the built-in backends, whose guard is
// cli/probe_reporter.h), started with posix_spawn as a worker is. A
// plugin whose library crashes when loaded (a static constructor), or whose listing or
// initialisation crashes, hangs past the step timeout or exits, ends only that child: it is
// listed unavailable with how the child ended and the last lines of its stderr, a new child
// probes the rest without it, and the runner never loads it (docs/RELIABILITY.md, "A plugin that
// dies while it loads"). Every plugin is probed in one child while none dies, so a clean probe
// costs one process start.
#pragma once

#include <chrono>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "loader/plugin_guard.h"

namespace opcert {

struct ProbeLaunch {
  std::string executable;         // the plugin probe program
  std::vector<std::string> args;  // the discovery flags; each failed step is added as --skip-plugin-step
  // How long one step may take; the probe's own start and its moves between steps get at least 120 s.
  std::chrono::milliseconds step_timeout{60'000};
};

/// The runner's guard: the probe's verdict on each step. Taken: the steps a child finished.
/// Refused: the step a child died, hung or exited in (with how, and its stderr's last lines), and
/// any step no child finished.
class PluginProbe : public PluginGuard {
 public:
  /// Runs probe children until one finishes or one ends outside any step.
  explicit PluginProbe(const ProbeLaunch& launch);
  std::optional<StepRefusal> before(const std::string& step) override;
  /// A listing the child finished with nothing listed: the runner need not list again.
  bool lists_nothing(const std::string& step) const override;

 private:
  // One child, skipping the steps already failed; true when no further child is needed.
  bool probe_once(const ProbeLaunch& launch, const std::string& log_path);

  std::set<std::string> passed_;
  std::set<std::string> listed_nothing_;  // listing steps a child finished with no entry
  std::map<std::string, StepRefusal> failed_;
  std::optional<StepRefusal> unfinished_;  // a child that ended outside any step, or could not start
};

/// The last `count` non-empty lines of a file, each cut to 300 characters; none if unreadable.
std::vector<std::string> last_lines(const std::string& path, std::size_t count);

}  // namespace opcert
