// The CPU backend's collectives as the SDK sees them: one implementation per op
// ("cpu.<op>.mpi") and the communicator entries of the ABI (sdk::CommBackend).
#pragma once

#include <opcert/sdk/backend.h>

#include <vector>

namespace opcert::cpu {

/// all_reduce, all_gather, reduce_scatter, broadcast, all_to_all; run only with a communicator.
std::vector<sdk::Implementation> collective_implementations();

/// The communicator entries, for a backend that registered collective_implementations().
class CpuCollectives : public sdk::CommBackend {
 public:
  explicit CpuCollectives(const sdk::Backend& backend) : backend_(&backend) {}
  uint32_t comm_unique_id(uint8_t* id) override;
  opcert_comm* comm_init(opcert_device device, int32_t rank, int32_t nranks, const uint8_t* id, uint32_t id_bytes,
                         double timeout_seconds) override;
  void comm_destroy(opcert_comm* comm) override;
  void comm_abort(opcert_comm* comm) override;
  void run_collective(const sdk::OpCall& call, opcert_comm* comm) override;

 private:
  const sdk::Backend* backend_;
};

}  // namespace opcert::cpu
