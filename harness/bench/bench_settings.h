// What `opcert bench` is told beyond what every session is (session/session_settings.h).
#pragma once

#include <string>
#include <vector>

#include "session/session_settings.h"

namespace opcert {

struct BenchSettings : SessionSettings {
  bool cold_l2 = false;        // --cold-l2: flush the last-level cache before each sample
  bool copy_baseline = false;  // --copy-baseline: time a copy of each memory-bound case's bytes
  /// Google Benchmark's own flags, passed through (--benchmark_min_time=..., ...).
  std::vector<std::string> benchmark_flags;
};

}  // namespace opcert
