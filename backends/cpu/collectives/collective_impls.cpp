#include "collectives/collective_impls.h"

#include <string>

#include <opcert/sdk/collective_args.h>
#include <opcert/sdk/collective_implementations.h>
#include "collectives/cpu_comm.h"

namespace opcert::cpu {
namespace {

CpuComm& comm_of(opcert_comm* comm) {
  if (comm == nullptr) throw sdk::Error(OPCERT_ERROR_INVALID_ARGUMENT, "null communicator");
  return *reinterpret_cast<CpuComm*>(comm);
}

}  // namespace

std::vector<sdk::Implementation> collective_implementations() {
  return sdk::collective_implementations(
      "cpu", "mpi", "non-blocking MPI on the backend's own communicator, polled against the timeout (one rank without MPI: a copy)",
      [](const sdk::OpCall& call, Collective which) { return sdk::collective_unsupported(call, which, mpi_job_ranks()); });
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
  const Collective which = sdk::collective_of(impl.op);
  if (const std::string why = sdk::collective_unsupported(call, which, c.nranks()); !why.empty())
    throw sdk::Error(OPCERT_ERROR_UNSUPPORTED, why);
  c.run(sdk::read_collective(call, which, c.nranks()));
}

}  // namespace opcert::cpu
