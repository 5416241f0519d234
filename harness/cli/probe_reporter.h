// The probe child's side of the plugin probe (session/worker/plugin_probe.h): the guard that says, one
// JSON line each, which discovery step begins and which is done, so that the runner learns which
// step a plugin that ended the child was in.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "loader/plugin_guard.h"

namespace opcert {

/// Says on `fd` which step begins and which is done, before and after it; refuses `skip`, the
/// steps earlier children failed.
class ProbeReporter : public PluginGuard {
 public:
  ProbeReporter(int fd, const std::vector<std::string>& skip) : fd_(fd), skip_(skip) {}
  std::optional<StepRefusal> before(const std::string& step) override;
  void after(const std::string& step) override;
  void listed(const std::string& step, std::size_t count) override;
  /// Every step taken: the runner may load what was done.
  void finish();

 private:
  int fd_;
  RefuseSteps skip_;
};

}  // namespace opcert
