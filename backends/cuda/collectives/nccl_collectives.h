// The CUDA backend's collectives as the SDK sees them: one implementation per op
// ("cuda.<op>.nccl", after the CPU backend's "cpu.<op>.mpi") and the communicator entries of the
// ABI (sdk::CommBackend), on NCCL (nccl_comm.h). Built without NCCL they are listed and declined.
#pragma once

#include <opcert/sdk/backend.h>

#include <optional>
#include <vector>

#include "collectives/test_fault.h"
#include "cuda_context.h"

namespace opcert::cuda {

class CudaCollectives;

/// all_reduce, all_gather, reduce_scatter, broadcast, all_to_all; run only with a communicator.
/// Their queries size a call against the ranks of `comms`' latest communicator.
std::vector<sdk::Implementation> collective_implementations(const CudaCollectives& comms);

/// The communicator entries, for a backend that registered collective_implementations().
class CudaCollectives : public sdk::CommBackend {
 public:
  CudaCollectives(const sdk::Backend& backend, CudaContext& ctx) : backend_(&backend), context_(&ctx) {}
  uint32_t comm_unique_id(uint8_t* id) override;
  opcert_comm* comm_init(opcert_device device, int32_t rank, int32_t nranks, const uint8_t* id, uint32_t id_bytes,
                         double timeout_seconds) override;
  void comm_destroy(opcert_comm* comm) override;
  void comm_abort(opcert_comm* comm) override;
  void run_collective(const sdk::OpCall& call, opcert_comm* comm) override;

  /// Ranks of the latest communicator made (the host makes one before it asks about a case);
  /// before any, the MPI launcher's world size (OMPI_COMM_WORLD_SIZE, PMI_SIZE, an srun step's
  /// SLURM_STEP_NUM_TASKS, torchrun's WORLD_SIZE), else 1.
  int ranks() const;

 private:
  const sdk::Backend* backend_;
  CudaContext* context_;
  std::optional<int> ranks_;
  std::optional<TestFaults> faults_;  // read at the first collective
};

}  // namespace opcert::cuda
