// The NCCL communicator. Every NCCL call on it is made under one mutex (abort() may come from
// another thread); waits poll with the mutex released, so such an abort is not held up. A
// collective returns once queued; the backend's next wait on the stream is bounded by its deadline
// (collectives/in_flight_watch.h).
#include <nccl.h>

#include <chrono>
#include <cstring>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>

#include "collectives/avg_divide.h"
#include "collectives/collective_plan.h"
#include "collectives/in_flight_watch.h"
#include "collectives/nccl_comm.h"
#include "cuda_check.h"
#include "cuda_context.h"

static_assert(sizeof(ncclUniqueId) <= OPCERT_COMM_UNIQUE_ID_BYTES, "an NCCL unique id must fit the ABI's id");

namespace opcert::cuda {
namespace {

using Clock = std::chrono::steady_clock;
constexpr double kDefaultTimeoutSeconds = 300.0;

std::string seconds_text(double s) {
  std::ostringstream out;
  out << s << " s";
  return out.str();
}

// "ncclAllReduce failed: unhandled system error (NCCL: <its last error line>)".
std::string nccl_failure(const char* call, ncclResult_t result) {
  std::string text = std::string(call) + " failed: " + ncclGetErrorString(result);
  const char* last = ncclGetLastError(nullptr);
  if (last != nullptr && *last != '\0') text += std::string(" (NCCL: ") + last + ")";
  return text;
}

ncclDataType_t nccl_type(int32_t dtype) {
  switch (dtype) {
    case OPCERT_DTYPE_F32: return ncclFloat32;
    case OPCERT_DTYPE_F16: return ncclFloat16;
    case OPCERT_DTYPE_BF16: return ncclBfloat16;
    default: return ncclInt32;
  }
}

ncclRedOp_t nccl_op(Reduction r) {
  switch (r) {
    case Reduction::kMax: return ncclMax;
    case Reduction::kMin: return ncclMin;
    case Reduction::kAvg: return ncclAvg;
    default: return ncclSum;
  }
}

class NcclCommImpl final : public NcclComm, public InFlightWatch::Watched {
 public:
  NcclCommImpl(CudaContext& ctx, int rank, int nranks, double timeout_seconds)
      : ctx_(ctx), rank_(rank), nranks_(nranks), timeout_seconds_(timeout_seconds) {}

  ~NcclCommImpl() override {
    ctx_.collectives_in_flight.forget(*this);
    std::lock_guard lock(mutex_);
    if (comm_ == nullptr) return;
    // Finalize flushes what NCCL still holds; bounded like everything else, then abort.
    cudaSetDevice(ctx_.device);
    const ncclResult_t r = ncclCommFinalize(comm_);
    if ((r == ncclSuccess || r == ncclInProgress) && settled(deadline()) == ncclSuccess) ncclCommDestroy(comm_);
    else ncclCommAbort(comm_);
    comm_ = nullptr;
  }

  int rank() const override { return rank_; }
  int nranks() const override { return nranks_; }
  double timeout_seconds() const override { return timeout_seconds_; }

  // Joins the other ranks: non-blocking init, polled until every rank is in or the deadline.
  void init(const ncclUniqueId& id) {
    const auto until = deadline();
    ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
    config.blocking = 0;
    std::unique_lock lock(mutex_);
    const ncclResult_t r = ncclCommInitRankConfig(&comm_, nranks_, id, rank_, &config);
    if (r != ncclSuccess && r != ncclInProgress) {
      const std::string why = nccl_failure("ncclCommInitRankConfig", r);
      abort_locked();
      throw sdk::Error(OPCERT_ERROR_DEVICE, why);
    }
    lock.unlock();
    settle_or_throw("ncclCommInitRankConfig", until, [this] {
      return "not every rank joined the NCCL communicator within " + seconds_text(timeout_seconds_) +
             " (a rank died, hangs or is far behind)";
    });
  }

  void run(const sdk::CollectiveArgs& a) override {
    const auto until = deadline();
    OPCERT_CUDA_CHECK(cudaSetDevice(ctx_.device));
    const CollectivePlan plan = plan_collective(a, nranks_);
    if (plan.call == NcclCall::kNothing) {
      throw_if_aborted();
      return;
    }
    const void* send = a.x;
    if (plan.stage_input) {
      void* staged = ctx_.scratch.get(a.x_bytes);
      OPCERT_CUDA_CHECK(cudaMemcpyAsync(staged, a.x, a.x_bytes, cudaMemcpyDeviceToDevice, ctx_.stream));
      send = staged;
    }
    last_op_ = a.op;
    last_count_ = a.count;
    const char* call = enqueue(plan, a, send);
    last_call_ = call;
    settle_or_throw(call, until, [this] { return late_message(); });
    if (plan.divide_after()) divide_by_ranks(a.y, a.count, a.dtype, nranks_, ctx_.stream);
    // No wait here: the stream's next wait (synchronize, a copy, an event) is bounded instead.
    ctx_.collectives_in_flight.arm(*this, until);
  }

  void poll() override {
    std::lock_guard lock(mutex_);
    (void)state_or_throw(last_call_);
  }

  std::string late_message() const override {
    return std::string(sdk::collective_name(last_op_)) + " of " + std::to_string(last_count_) +
           " element(s) per rank did not complete within " + seconds_text(timeout_seconds_) +
           ": a rank did not take part (it died, hangs or is far behind); the NCCL communicator was aborted";
  }

  void abort() override {
    std::lock_guard lock(mutex_);
    abort_locked();
  }

 private:
  Clock::time_point deadline() const {
    return Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(timeout_seconds_));
  }

  void abort_locked() {
    if (comm_ != nullptr) ncclCommAbort(comm_);
    comm_ = nullptr;
    aborted_ = true;
  }

  void throw_if_aborted() {
    std::lock_guard lock(mutex_);
    if (aborted_) throw sdk::Error(OPCERT_ERROR_ABORTED, "the NCCL communicator was aborted; make a new one");
  }

  // Queues the plan's NCCL calls; returns the name of the call (for messages). ncclInProgress is
  // settled by the caller.
  const char* enqueue(const CollectivePlan& plan, const sdk::CollectiveArgs& a, const void* send) {
    std::lock_guard lock(mutex_);
    if (aborted_) throw sdk::Error(OPCERT_ERROR_ABORTED, "the NCCL communicator was aborted; make a new one");
    const auto count = static_cast<std::size_t>(a.count);
    const ncclDataType_t type = nccl_type(a.dtype);
    const char* call = "";
    ncclResult_t r = ncclSuccess;
    switch (plan.call) {
      case NcclCall::kAllReduce:
        call = "ncclAllReduce";
        r = ncclAllReduce(send, a.y, count, type, nccl_op(plan.reduction), comm_, ctx_.stream);
        break;
      case NcclCall::kReduceScatter:
        call = "ncclReduceScatter";
        r = ncclReduceScatter(send, a.y, count, type, nccl_op(plan.reduction), comm_, ctx_.stream);
        break;
      case NcclCall::kAllGather:
        call = "ncclAllGather";
        r = ncclAllGather(send, a.y, count, type, comm_, ctx_.stream);
        break;
      case NcclCall::kBroadcast:
        call = "ncclBroadcast";
        r = ncclBroadcast(send, a.y, count, type, a.root, comm_, ctx_.stream);
        break;
      case NcclCall::kSendRecvGroup: {
        call = "ncclSend/ncclRecv group";
        const std::size_t block = count * sdk::dtype_size(a.dtype);
        r = ncclGroupStart();
        for (int peer = 0; peer < nranks_ && r == ncclSuccess; ++peer) {
          r = ncclSend(static_cast<const std::byte*>(send) + peer * block, count, type, peer, comm_, ctx_.stream);
          if (r == ncclSuccess) r = ncclRecv(a.y + peer * block, count, type, peer, comm_, ctx_.stream);
        }
        const ncclResult_t end = ncclGroupEnd();  // always closes the group, also after a failed call in it
        if (r == ncclSuccess) r = end;
        break;
      }
      case NcclCall::kNothing: break;
    }
    if (r != ncclSuccess && r != ncclInProgress) {
      const std::string why = nccl_failure(call, r);
      abort_locked();
      throw sdk::Error(OPCERT_ERROR_DEVICE, why);
    }
    return call;
  }

  // Polls the communicator's state until it is no longer ncclInProgress or `until` passed;
  // the last state (ncclInProgress when the deadline passed). Called with the mutex held.
  ncclResult_t settled(Clock::time_point until) {
    const PollPacer pacer;
    for (;;) {
      ncclResult_t state = ncclSuccess;
      const ncclResult_t r = ncclCommGetAsyncError(comm_, &state);
      if (r != ncclSuccess) return r;
      if (state != ncclInProgress || Clock::now() >= until) return state;
      pacer.pause();
    }
  }

  // The communicator's state, ncclSuccess or ncclInProgress; on ABORTED or an NCCL error (the
  // communicator then aborted) throws, naming `call`. Called with the mutex held.
  ncclResult_t state_or_throw(const char* call) {
    if (aborted_) throw sdk::Error(OPCERT_ERROR_ABORTED, std::string(call) + ": the NCCL communicator was aborted");
    ncclResult_t state = ncclSuccess;
    const ncclResult_t r = ncclCommGetAsyncError(comm_, &state);
    const ncclResult_t now = r != ncclSuccess ? r : state;
    if (now == ncclSuccess || now == ncclInProgress) return now;
    const std::string why = nccl_failure(call, now);
    abort_locked();
    throw sdk::Error(OPCERT_ERROR_DEVICE, why);
  }

  // Waits, the mutex released between polls, until the communicator settled; on an error or at
  // the deadline aborts it and throws (DEVICE naming `call`, or TIMEOUT with `late()`, which is
  // only composed then: this runs after every collective).
  template <class LateMessage>
  void settle_or_throw(const char* call, Clock::time_point until, const LateMessage& late) {
    const PollPacer pacer;
    for (;;) {
      {
        std::lock_guard lock(mutex_);
        if (state_or_throw(call) == ncclSuccess) return;
        if (Clock::now() >= until) {
          abort_locked();
          throw sdk::Error(OPCERT_ERROR_TIMEOUT, late());
        }
      }
      pacer.pause();
    }
  }

  CudaContext& ctx_;
  int rank_;
  int nranks_;
  double timeout_seconds_;
  std::mutex mutex_;
  ncclComm_t comm_ = nullptr;
  bool aborted_ = false;
  // The last collective queued, for the messages of a later wait.
  Collective last_op_ = Collective::kAllReduce;
  int64_t last_count_ = 0;
  const char* last_call_ = "NCCL";
};

// The loaded library's version (it may differ from the header's), asked once.
int runtime_version() {
  static const int version = [] {
    int v = 0;
    return ncclGetVersion(&v) == ncclSuccess ? v : 0;
  }();
  return version;
}

}  // namespace

std::string nccl_unavailable() {
  const std::string why = nccl_declines(runtime_version());
  return why.empty() ? why : why + "; point NCCL_ROOT (or LD_LIBRARY_PATH) at a newer NCCL";
}

uint32_t nccl_unique_id(uint8_t* id) {
  if (const std::string why = nccl_unavailable(); !why.empty()) throw sdk::Error(OPCERT_ERROR_UNSUPPORTED, why);
  ncclUniqueId unique{};
  if (const ncclResult_t r = ncclGetUniqueId(&unique); r != ncclSuccess)
    throw sdk::Error(OPCERT_ERROR_DEVICE, nccl_failure("ncclGetUniqueId", r));
  std::memcpy(id, &unique, sizeof unique);
  return sizeof unique;
}

std::unique_ptr<NcclComm> make_nccl_comm(CudaContext& ctx, int rank, int nranks, const uint8_t* id, uint32_t id_bytes,
                                         double timeout_seconds) {
  if (const std::string why = nccl_unavailable(); !why.empty()) throw sdk::Error(OPCERT_ERROR_UNSUPPORTED, why);
  if (id_bytes != sizeof(ncclUniqueId))
    throw sdk::Error(OPCERT_ERROR_INVALID_ARGUMENT, "not a unique id of the CUDA backend (" + std::to_string(id_bytes) +
                                                        " bytes; its comm_unique_id makes ids of " +
                                                        std::to_string(sizeof(ncclUniqueId)) + ")");
  if (nranks < 1 || rank < 0 || rank >= nranks)
    throw sdk::Error(OPCERT_ERROR_INVALID_ARGUMENT, "rank " + std::to_string(rank) + " of " + std::to_string(nranks));
  OPCERT_CUDA_CHECK(cudaSetDevice(ctx.device));
  ncclUniqueId unique{};
  std::memcpy(&unique, id, sizeof unique);
  auto comm = std::make_unique<NcclCommImpl>(ctx, rank, nranks, timeout_seconds > 0 ? timeout_seconds : kDefaultTimeoutSeconds);
  comm->init(unique);
  return comm;
}

}  // namespace opcert::cuda
