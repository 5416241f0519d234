// Facts about this build of opcert, for `opcert version` and every report's environment.
#pragma once

#include <string_view>

namespace opcert {

struct BuildInfo {
  std::string_view version;     // project version
  std::string_view git_commit;  // short hash at configure time, or "unknown"
  std::string_view compiler;
  std::string_view build_type;
  bool with_cuda;
  bool with_libtorch;
  bool with_mpi;
};

const BuildInfo& build_info();

}  // namespace opcert
