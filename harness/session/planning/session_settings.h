// What `opcert run` and `opcert bench` are told alike: which cases and implementations, where the
// outputs go, the seed, the platform, the peer, the facts the report records, and how their
// workers are started. Each verb's own settings extend it (RunSettings in run/, BenchSettings in
// bench/).
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "loader/platform/platform_config.h"
#include "reports/environment.h"

namespace opcert {

struct SessionSettings {
  std::string filter;                         // --filter regex over case ids; "" = every case
  std::string impl_selection;                 // --impl globs over implementation keys; "" = all
  std::filesystem::path out_dir;              // created if missing
  uint64_t seed = 1;
  std::string platform;                       // --platform, "" for none
  const PlatformCatalog* platforms = nullptr; // the catalogue --platform and tolerances come from
  std::string peer;                           // --peer: the backend compared with, "" for none
  std::string command_line;                   // as typed, for the report
  EnvironmentInputs environment;              // build facts for the report's environment
  std::string executable;                     // the opcert binary that workers exec
  /// The options every worker gets so that it loads the same backends and platform configs
  /// (--plugin-dir, --plugin, --allow-insecure-plugins, --platform, --platform-config).
  std::vector<std::string> worker_options;
};

}  // namespace opcert
