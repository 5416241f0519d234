// Internal to harness/ranks: the MPI world (built only with MPI).
#pragma once

#include <memory>

#include "ranks/world.h"

namespace opcert {

/// Initialises MPI (MPI_THREAD_MULTIPLE requested) and returns the world of MPI_COMM_WORLD.
std::unique_ptr<World> make_mpi_world();

}  // namespace opcert
