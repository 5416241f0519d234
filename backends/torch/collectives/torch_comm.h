// The torch backend's communicator (the ABI's opcert_comm* is a TorchComm*): one c10d process
// group over this rank's device (Gloo for the host, NCCL for a CUDA device) and the collectives
// queued on it. Every wait is bounded by the communicator's timeout: setup runs on a thread that
// is abandoned at the deadline, and a collective that does not complete in time fails with
// TIMEOUT. Work that never completed keeps its group and tensors alive for the life of the
// process (they may still be written), so destroying such a communicator frees nothing.
#pragma once

#include <ATen/ATen.h>
#include <opcert/sdk/ops/collectives.h>

#include <atomic>
#include <chrono>
#include <deque>
#include <memory>
#include <mutex>
#include <string>

#include "collectives/process_group.h"
#include "collectives/rendezvous.h"

namespace opcert::torch_backend {

class TorchComm {
 public:
  using Clock = std::chrono::steady_clock;

  /// Joins rank 0's rendezvous (rank 0 passes its server) and builds the group for `device`.
  /// When this build has no group for the device, the communicator still forms (the harness
  /// needs one to ask about cases) and every collective fails with UNSUPPORTED, saying why.
  /// Throws sdk::Error: TIMEOUT when the ranks do not all join within `timeout`.
  static std::unique_ptr<TorchComm> create(at::Device device, int rank, int nranks, const RendezvousId& id,
                                           c10::intrusive_ptr<c10d::Store> server, std::chrono::milliseconds timeout);
  ~TorchComm();
  TorchComm(const TorchComm&) = delete;
  TorchComm& operator=(const TorchComm&) = delete;

  int rank() const { return rank_; }
  int nranks() const { return nranks_; }
  const at::Device& device() const { return device_; }
  /// The transport of the device's group (Gloo for the host, NCCL for a CUDA device).
  Transport transport() const { return transport_; }

  /// Starts one collective. Gloo: complete on return. NCCL: queued, complete at drain().
  /// Throws sdk::Error: ABORTED after abort(), TIMEOUT, UNSUPPORTED, DEVICE (c10d's error).
  void run(const sdk::CollectiveArgs& args);
  /// Waits for every queued collective, each until its own deadline.
  void drain();
  /// Abandons what is in flight; later calls fail with ABORTED.
  void abort();

 private:
  struct Pending {
    Launched launched;
    Clock::time_point deadline;
  };
  TorchComm(at::Device device, int rank, int nranks, std::chrono::milliseconds timeout);
  void wait(Pending& p);

  at::Device device_;
  int rank_, nranks_;
  std::chrono::milliseconds timeout_;
  Transport transport_;
  std::string missing_;
  std::shared_ptr<ProcessGroup> group_;
  c10::intrusive_ptr<c10d::Store> store_;
  std::mutex mutex_;  // guards pending_
  std::deque<Pending> pending_;
  std::atomic<bool> aborted_{false};
  bool abandoned_ = false;  // some work never completed: park instead of freeing
};

}  // namespace opcert::torch_backend
