// make_world: MPI under an MPI launcher when built with MPI, else a single rank that says why.
#include <fmt/format.h>

#include "ranks/launch_env.h"
#include "ranks/single_world.h"
#include "ranks/world.h"
#if OPCERT_RANKS_HAVE_MPI
#include "ranks/mpi_world.h"
#endif

namespace opcert {

bool world_has_mpi() { return OPCERT_RANKS_HAVE_MPI != 0; }

std::unique_ptr<World> make_world() {
  const LaunchEnv env = read_launch_env();
  if (env.launcher.empty())
    return make_single_world(
        "not started by an MPI launcher: running the collectives as a single rank (for N ranks: mpirun -np N opcert ...)");
#if OPCERT_RANKS_HAVE_MPI
  return make_mpi_world();
#else
  return make_single_world(fmt::format(
      "started by {} as rank {} of {}, but this opcert was built without MPI (OPCERT_WITH_MPI): every rank runs alone",
      env.launcher, env.rank.value_or(0), env.size.value_or(1)));
#endif
}

}  // namespace opcert
