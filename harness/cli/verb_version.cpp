#include <opcert/backend_abi.h>

#include <fmt/format.h>

#include "cli/build_info.h"
#include "cli/verbs.h"
#include "model/exit_codes.h"

namespace opcert {

void add_version_verb(CLI::App& app, int& exit_code) {
  auto* verb = app.add_subcommand("version", "Print opcert's version, ABI version and build options");
  verb->callback([&exit_code] {
    const BuildInfo& b = build_info();
    fmt::print("opcert {} (commit {})\n", b.version, b.git_commit);
    fmt::print("backend ABI {}.{}\n", OPCERT_ABI_VERSION_MAJOR, OPCERT_ABI_VERSION_MINOR);
    fmt::print("built with {} ({}); CUDA {}, LibTorch {}, MPI {}\n", b.compiler, b.build_type,
               b.with_cuda ? "on" : "off", b.with_libtorch ? "on" : "off", b.with_mpi ? "on" : "off");
    exit_code = kExitOk;
  });
}

}  // namespace opcert
