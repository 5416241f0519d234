// Built without MPI: the CPU backend's collectives run on one rank only.
#include "collectives/cpu_comm.h"

namespace opcert::cpu {

int mpi_job_ranks() { return 1; }

std::unique_ptr<CpuComm> make_mpi_comm(int, int, uint64_t, double) { return nullptr; }

}  // namespace opcert::cpu
