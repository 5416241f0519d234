#include "collectives/nccl_collectives.h"

#include <opcert/sdk/collective_implementations.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>

#include "collectives/nccl_comm.h"

namespace opcert::cuda {
namespace {

NcclComm& comm_of(opcert_comm* comm) {
  if (comm == nullptr) throw sdk::Error(OPCERT_ERROR_INVALID_ARGUMENT, "null communicator");
  return *reinterpret_cast<NcclComm*>(comm);
}

// CUDA memory; a query assumes the job's ranks; the one limit beyond the contract is NCCL itself.
sdk::CollectiveTarget target(const CudaCollectives& comms) {
  return {OPCERT_DEVICE_CUDA, [&comms] { return comms.ranks(); },
          [](const sdk::CollectiveOperands&) { return nccl_unavailable(); }};
}

// A rank that stopped taking part, for the failure tests: it sleeps inside run_op so that the
// other ranks' collectives must end at their deadline. Bounded all the same: the host's watchdog
// ends a stuck rank long before.
[[noreturn]] void injected_hang(double timeout_seconds) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(10 * timeout_seconds + 60);
  while (std::chrono::steady_clock::now() < until) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  throw sdk::Error(OPCERT_ERROR_TIMEOUT, "OPCERT_CUDA_TEST_FAULT: the injected hang ended without the host stopping it");
}

}  // namespace

std::vector<sdk::Implementation> collective_implementations(const CudaCollectives& comms) {
  return sdk::collective_implementations(
      "cuda", "nccl",
      "NCCL on the backend's stream, every call bounded by the timeout (joined non-blocking, collectives on a "
      "blocking split; avg exact: ncclAvg, or a sum then a division where ncclAvg would round)",
      target(comms));
}

int CudaCollectives::ranks() const {
  if (ranks_) return *ranks_;
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "SLURM_STEP_NUM_TASKS", "WORLD_SIZE"})
    if (const char* v = std::getenv(name); v != nullptr && std::atoi(v) > 0) return std::atoi(v);
  return 1;
}

uint32_t CudaCollectives::comm_unique_id(uint8_t* id) { return nccl_unique_id(id); }

opcert_comm* CudaCollectives::comm_init(opcert_device device, int32_t rank, int32_t nranks, const uint8_t* id,
                                        uint32_t id_bytes, double timeout_seconds) {
  if (device.type != OPCERT_DEVICE_CUDA || device.index != context_->device)
    throw sdk::Error(OPCERT_ERROR_INVALID_ARGUMENT,
                     "comm_init on device type " + std::to_string(device.type) + " index " + std::to_string(device.index) +
                         ", but this CUDA backend runs on CUDA device " + std::to_string(context_->device) +
                         " (chosen by the local rank or OPCERT_CUDA_DEVICE): pass the device it lists");
  auto comm = make_nccl_comm(*context_, rank, nranks, id, id_bytes, timeout_seconds);
  ranks_ = nranks;
  return reinterpret_cast<opcert_comm*>(comm.release());
}

void CudaCollectives::comm_destroy(opcert_comm* comm) { delete reinterpret_cast<NcclComm*>(comm); }

void CudaCollectives::comm_abort(opcert_comm* comm) { comm_of(comm).abort(); }

void CudaCollectives::run_collective(const sdk::OpCall& call, opcert_comm* comm) {
  NcclComm& c = comm_of(comm);
  const sdk::Implementation& impl = backend_->implementation(std::string(call.impl_key()));
  const sdk::CollectiveArgs args = sdk::checked_collective(call, sdk::collective_of(impl.op), c.nranks(), target(*this));
  if (!faults_) faults_ = TestFaults::from_env();
  if (const auto fault = faults_->next_collective(c.rank())) {
    if (*fault == TestFault::Action::kExit) {
      std::fflush(nullptr);
      _exit(3);
    }
    injected_hang(c.timeout_seconds());
  }
  c.run(args);
}

}  // namespace opcert::cuda
