#include "collectives/collective_impls.h"

#include <string>

#include <opcert/sdk/collective_implementations.h>
#include "collectives/cpu_comm.h"

namespace opcert::cpu {
namespace {

CpuComm& comm_of(opcert_comm* comm) {
  if (comm == nullptr) throw sdk::Error(OPCERT_ERROR_INVALID_ARGUMENT, "null communicator");
  return *reinterpret_cast<CpuComm*>(comm);
}

// Host memory; a query assumes the MPI job's ranks. No limit beyond the contract.
sdk::CollectiveTarget target() { return {OPCERT_DEVICE_CPU, mpi_job_ranks, nullptr}; }

}  // namespace

std::vector<sdk::Implementation> collective_implementations() {
  return sdk::collective_implementations(
      "cpu", "mpi", "non-blocking MPI on the backend's own communicator, polled against the timeout (one rank without MPI: a copy)",
      target());
}

uint32_t CpuCollectives::comm_unique_id(uint8_t* id) { return cpu_comm_unique_id(id); }

opcert_comm* CpuCollectives::comm_init(opcert_device, int32_t rank, int32_t nranks, const uint8_t* id, uint32_t id_bytes,
                                       double timeout_seconds) {
  return reinterpret_cast<opcert_comm*>(make_cpu_comm(rank, nranks, id, id_bytes, timeout_seconds).release());
}

void CpuCollectives::comm_destroy(opcert_comm* comm) { delete reinterpret_cast<CpuComm*>(comm); }

void CpuCollectives::comm_abort(opcert_comm* comm) { comm_of(comm).abort(); }

void CpuCollectives::run_collective(const sdk::OpCall& call, opcert_comm* comm) {
  CpuComm& c = comm_of(comm);
  const sdk::Implementation& impl = backend_->implementation(std::string(call.impl_key()));
  c.run(sdk::checked_collective(call, sdk::collective_of(impl.op), c.nranks(), target()));
}

}  // namespace opcert::cpu
