// What discovery asks before it runs a plugin's code: loading its library (its static
// constructors run), listing the backends of a library of several, initialising a backend. The
// runner answers from a probe child that took the same steps first (session/worker/plugin_probe.h), so
// that a plugin that crashed, hung or exited there is listed unavailable and never loaded here
// (docs/RELIABILITY.md, "A plugin that dies while it loads").
#pragma once

#include <cstddef>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace opcert {

/// Why a step must not be taken: one line, and the last lines the probe child wrote to stderr.
struct StepRefusal {
  std::string reason;
  std::vector<std::string> stderr_tail;
};

class PluginGuard {
 public:
  virtual ~PluginGuard() = default;
  /// Before `step` ("load <library>", "list <library>", "init <library>[ <backend>]"): nullopt
  /// to take it, or why not (the plugin is then listed unavailable with it).
  virtual std::optional<StepRefusal> before(const std::string& step) = 0;
  /// After `step` returned, whether it succeeded or its error was recorded.
  virtual void after(const std::string& step) { (void)step; }
  /// Within a listing step that succeeded: how many entries (backends and notes) it listed.
  virtual void listed(const std::string& step, std::size_t count) { (void)step, (void)count; }
  /// Whether a listing step is known to list nothing (the probe child took it and listed none):
  /// discovery then skips it, and with it the Python bridge's start of its interpreter.
  virtual bool lists_nothing(const std::string& step) const { (void)step; return false; }
};

/// Refuses the steps a runner's probe saw end its child (a worker's, or a later probe child's,
/// `--skip-plugin-step`); takes every other.
class RefuseSteps : public PluginGuard {
 public:
  explicit RefuseSteps(const std::vector<std::string>& steps) : steps_(steps.begin(), steps.end()) {}
  std::optional<StepRefusal> before(const std::string& step) override {
    if (steps_.count(step) == 0) return std::nullopt;
    return StepRefusal{"not loaded: it ended the runner's plugin probe (`opcert list` says how)", {}};
  }

 private:
  std::set<std::string> steps_;
};

}  // namespace opcert
