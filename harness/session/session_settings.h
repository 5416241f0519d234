// What `opcert run` and `opcert bench` are told alike: which cases and implementations, where the
// outputs go, the seed, the platform, the peer, and the facts the report records. Each verb's own
// settings extend it (RunSettings in run/, BenchSettings in bench/).
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

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
};

}  // namespace opcert
