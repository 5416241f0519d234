// What `opcert run` is told beyond what every session is (session/session_settings.h).
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "reports/progress.h"
#include "session/session_settings.h"

namespace opcert {

struct RunSettings : SessionSettings {
  std::chrono::milliseconds timeout{60000};  // per case
  ProgressMode progress = ProgressMode::kAuto;
  std::string executable;                    // the opcert binary that workers exec
  /// The options every worker gets so that it loads the same backends and platform configs
  /// (--plugin-dir, --plugin, --allow-insecure-plugins, --platform, --platform-config).
  std::vector<std::string> worker_options;
  /// What the repro line adds after the plugin options (--platform NAME, ...).
  std::vector<std::string> repro_options;
  std::string repro_suite;                   // the suite as a repro line names it
};

}  // namespace opcert
