// The CUDA backend's communicator: one NCCL communicator over this rank's device, joined
// non-blocking from rank 0's unique id (from NCCL 2.18 the collectives run on a blocking
// communicator split from it, for launch speed), every wait bounded by the communicator's timeout
// (the asynchronous error is polled and, at the deadline or on an error, the communicator aborted), so
// that a peer that died or hangs ends a call, or the wait on the stream after it, with TIMEOUT or
// a device error instead of a hang.
// The ABI's opcert_comm* of the CUDA backend is an NcclComm*. Built without NCCL (no_nccl_comm.cpp)
// every entry says why it cannot run.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include <opcert/sdk/ops/collectives.h>

namespace opcert::cuda {

struct CudaContext;

class NcclComm {
 public:
  virtual ~NcclComm() = default;
  virtual int rank() const = 0;
  virtual int nranks() const = 0;
  /// Queues one collective on the context's stream and returns, without waiting for it (so that
  /// collectives run back to back); the context's next wait on the stream is bounded by this
  /// call's deadline (CudaContext::collectives_in_flight). Throws sdk::Error: TIMEOUT when NCCL
  /// does not take it within the timeout (the communicator is then aborted), DEVICE naming the
  /// NCCL call and NCCL's error, ABORTED after abort().
  virtual void run(const sdk::CollectiveArgs& args) = 0;
  /// ncclCommAbort: abandons what is in flight; later calls fail with ABORTED. Safe to call from
  /// another thread while run() waits (it then ends with ABORTED).
  virtual void abort() = 0;
  /// The timeout every wait of this communicator is bounded by, in seconds.
  virtual double timeout_seconds() const = 0;
};

/// "" when this build and the NCCL library it runs with can carry the collectives; otherwise one
/// line saying why not and what to do (shown as the reason of every declined collective).
std::string nccl_unavailable();

/// ncclGetUniqueId into `id` (OPCERT_COMM_UNIQUE_ID_BYTES available); returns the bytes used.
uint32_t nccl_unique_id(uint8_t* id);

/// Rank `rank` of `nranks` on the context's device, from rank 0's id. `timeout_seconds` (0: 300 s)
/// bounds the creation and every later call. Throws sdk::Error (TIMEOUT when not every rank
/// joined in time).
std::unique_ptr<NcclComm> make_nccl_comm(CudaContext& ctx, int rank, int nranks, const uint8_t* id, uint32_t id_bytes,
                                         double timeout_seconds);

}  // namespace opcert::cuda
