// The torch backend's collectives as the SDK sees them: for each catalogue collective a key per
// c10d transport, "torch.<op>.gloo" (host memory, ProcessGroupGloo) and "torch.<op>.nccl" (CUDA
// memory, ProcessGroupNCCL), and the communicator entries of the ABI (sdk::CommBackend).
// docs/TORCH.md describes them.
#pragma once

#include <opcert/sdk/backend.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <set>

#include "collectives/rendezvous.h"

namespace opcert::torch_backend {

class TorchComm;

/// The communicator entries and the keys' queries, for the backend that owns them.
class TorchCollectives : public sdk::CommBackend {
 public:
  explicit TorchCollectives(const sdk::Backend& backend) : backend_(&backend) {}
  ~TorchCollectives() override;

  /// One implementation per collective and transport; run only with a communicator.
  std::vector<sdk::Implementation> implementations();

  uint32_t comm_unique_id(uint8_t* id) override;
  opcert_comm* comm_init(opcert_device device, int32_t rank, int32_t nranks, const uint8_t* id, uint32_t id_bytes,
                         double timeout_seconds) override;
  void comm_destroy(opcert_comm* comm) override;
  void comm_abort(opcert_comm* comm) override;
  void run_collective(const sdk::OpCall& call, opcert_comm* comm) override;

  /// Waits for the collectives queued on `device`'s communicators (the backend's synchronize).
  void drain(opcert_device device);

 private:
  const sdk::Backend* backend_;
  std::atomic<int> ranks_{1};  // of the latest communicator: what queries size a call against
  std::mutex mutex_;           // guards what follows
  std::unique_ptr<RendezvousServer> server_;  // rank 0: made by comm_unique_id, taken by comm_init
  std::set<TorchComm*> comms_;
};

}  // namespace opcert::torch_backend
