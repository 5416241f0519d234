// Facts about this build of opcert, for `opcert version` and every report's environment.
#pragma once

#include <string_view>

namespace opcert {

struct BuildInfo {
  std::string_view version;     // project version
  std::string_view git_commit;  // short hash of the tree it was built from ("-dirty" with changes), or "unknown"
  std::string_view compiler;
  std::string_view build_type;
  bool with_cuda;
  bool with_libtorch;
  bool with_mpi;
};

const BuildInfo& build_info();

/// The commit, written at every build (cmake/OpcertGitCommit.cmake).
extern const char* const kGitCommit;

}  // namespace opcert
