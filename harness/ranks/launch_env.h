// Was this process started by an MPI launcher (mpirun/mpiexec, srun)? Read from the environment
// the launchers set, so that MPI is initialised only under one: a plain `opcert run` never
// touches MPI and runs a collective suite as a single rank.
#pragma once

#include <functional>
#include <optional>
#include <string>

namespace opcert {

struct LaunchEnv {
  std::string launcher;            // "Open MPI", "PMIx", "PMI", "Slurm srun"; "" when none
  std::optional<int> rank;         // as the launcher numbers it
  std::optional<int> size;
  std::optional<int> local_rank;   // rank among the processes of this host: picks the device
};

/// The launcher's variables in `getenv` (OMPI_COMM_WORLD_*, PMIX_RANK, PMI_RANK/PMI_SIZE,
/// SLURM_PROCID with SLURM_STEP_ID, i.e. inside an srun step, MPI_LOCALRANKID, ...).
LaunchEnv read_launch_env(const std::function<const char*(const char*)>& getenv_fn);
LaunchEnv read_launch_env();

/// Why Open MPI cannot make one job of this launch, or "" when it can. It joins the ranks its own
/// mpirun started (OMPI_COMM_WORLD_*) or those given PMIx (`srun --mpi=pmix`) only: Debian's build
/// has no component for Slurm's PMI-1/PMI-2, so an srun step without PMIx would abort every rank
/// inside MPI_Init with a page of text (docs/SCALE.md).
std::string open_mpi_join_problem(const LaunchEnv& env);

}  // namespace opcert
