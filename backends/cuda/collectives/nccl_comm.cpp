// The NCCL communicator. The ranks join on a non-blocking communicator, polled against the
// deadline; from NCCL 2.18 the collectives then run on a blocking one split from it (a
// non-blocking communicator launches every collective from a thread of NCCL's, tens of
// microseconds a call), each call bounded on the host by a watchdog that aborts it at the deadline.
// NCCL's non-blocking calls are made under one mutex (abort() may come from another thread);
// waits poll with the mutex released, so such an abort is not held up. A collective returns once
// queued; the backend's next wait on the stream is bounded by its deadline
// (collectives/in_flight_watch.h).
#include <nccl.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <memory>
#include <mutex>
#include <optional>
#include <sstream>
#include <string>
#include <thread>

#include "collectives/avg_divide.h"
#include "collectives/collective_plan.h"
#include "collectives/host_call_watchdog.h"
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

// The loaded library's version (it may differ from the header's), asked once.
int runtime_version();

class NcclCommImpl final : public NcclComm, public InFlightWatch::Watched {
 public:
  NcclCommImpl(CudaContext& ctx, int rank, int nranks, double timeout_seconds)
      : ctx_(ctx), rank_(rank), nranks_(nranks), timeout_seconds_(timeout_seconds) {}

  ~NcclCommImpl() override {
    ctx_.collectives_in_flight.forget(*this);
    cudaSetDevice(ctx_.device);
    ncclComm_t comm = nullptr;
    {
      std::lock_guard lock(mutex_);
      comm = comm_;
    }
    if (comm == nullptr) return;
    // Finalize flushes what NCCL still holds; bounded like everything else, then abort.
    const auto until = deadline();
    std::optional<HostCallWatchdog::Armed> armed;
    if (watchdog_) armed.emplace(*watchdog_, until);
    const ncclResult_t finalized = ncclCommFinalize(comm);
    armed.reset();
    std::lock_guard lock(mutex_);
    if (comm_ == nullptr) return;  // the watchdog aborted it
    close_finalized(comm_, finalized, until);
    comm_ = nullptr;
  }

  int rank() const override { return rank_; }
  int nranks() const override { return nranks_; }
  double timeout_seconds() const override { return timeout_seconds_; }

  // Joins the other ranks: non-blocking init, polled until every rank is in or the deadline; then,
  // where NCCL can, a blocking communicator split from it for the collectives.
  void init(const ncclUniqueId& id) {
    const auto until = deadline();
    ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
    config.blocking = 0;
    std::unique_lock lock(mutex_);
    const ncclResult_t r = ncclCommInitRankConfig(&comm_, nranks_, id, rank_, &config);
    if (r != ncclSuccess && r != ncclInProgress) {
      fail_locked("ncclCommInitRankConfig", r);
    }
    lock.unlock();
    settle_or_throw(comm_, "ncclCommInitRankConfig", until, [this] { return not_joined(); });
#if NCCL_VERSION_CODE >= 21800
    if (runtime_version() >= kBlockingSplitNcclVersion) split_blocking(until);
#endif
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
    if (watchdog_) enqueue_blocking(plan, a, send, until);
    else enqueue_non_blocking(plan, a, send, until);
    if (plan.divide_after()) divide_by_ranks(a.y, a.count, a.dtype, nranks_, ctx_.stream);
    // No wait here: the stream's next wait (synchronize, a copy, an event) is bounded instead.
    ctx_.collectives_in_flight.arm(*this, until);
  }

  void poll() override {
    std::lock_guard lock(mutex_);
    (void)state_or_throw(comm_, last_call_);
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

  std::string not_joined() const {
    return "not every rank joined the NCCL communicator within " + seconds_text(timeout_seconds_) +
           " (a rank died, hangs or is far behind)";
  }

  // The collectives' communicator: ncclCommSplit of the joined one with blocking set. The split
  // runs in the parent's non-blocking mode: NCCL's thread makes the child and writes its handle
  // only when done, so the parent is polled against the deadline as the join was. The parent is
  // then finalized (bounded; aborted if that fails) and only the child stays.
#if NCCL_VERSION_CODE >= 21800
  void split_blocking(Clock::time_point until) {
    ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
    config.blocking = 1;
    ncclComm_t parent = nullptr;
    {
      std::lock_guard lock(mutex_);
      parent = comm_;
      const ncclResult_t r = ncclCommSplit(parent, 0, rank_, &splitting_, &config);
      if (r != ncclSuccess && r != ncclInProgress) {
        fail_locked("ncclCommSplit", r);
      }
    }
    // NCCL's thread writes the child's handle when the split is done (the call may already have
    // returned ncclSuccess): polled, with the parent's state, until it is there or the deadline.
    ncclComm_t child = nullptr;
    const PollPacer pacer;
    for (;;) {
      {
        std::lock_guard lock(mutex_);
        const ncclResult_t state = state_or_throw(parent, "ncclCommSplit");
        child = std::atomic_ref<ncclComm_t>(splitting_).load();
        if (child != nullptr) break;
        if (Clock::now() >= until) {
          abort_locked();
          if (state == ncclSuccess)
            throw sdk::Error(OPCERT_ERROR_DEVICE,
                             "ncclCommSplit completed without a communicator for rank " + std::to_string(rank_));
          throw sdk::Error(OPCERT_ERROR_TIMEOUT, not_joined());
        }
      }
      pacer.pause();
    }
    settle_or_throw(child, "ncclCommSplit", until, [this] { return not_joined(); });
    {
      std::lock_guard lock(mutex_);
      if (aborted_) throw sdk::Error(OPCERT_ERROR_ABORTED, "the NCCL communicator was aborted while it was made");
      comm_ = splitting_;
      splitting_ = nullptr;
      close_finalized(parent, ncclCommFinalize(parent), until);
    }
    watchdog_ = std::make_unique<HostCallWatchdog>([this] { abort(); });
  }
#endif

  // On the blocking communicator: the NCCL calls return once queued, but may wait on the host for
  // a peer (connection set-up), so the watchdog aborts the communicator at the deadline; no lock
  // is held meanwhile, so that such an abort (or abort() from another thread) is not held up.
  void enqueue_blocking(const CollectivePlan& plan, const sdk::CollectiveArgs& a, const void* send,
                        Clock::time_point until) {
    ncclComm_t comm = nullptr;
    {
      std::lock_guard lock(mutex_);
      throw_if_aborted_locked();
      comm = comm_;
    }
    const char* call = "";
    ncclResult_t r = ncclSuccess;
    {
      HostCallWatchdog::Armed armed(*watchdog_, until);
      r = enqueue(comm, plan, a, send, call);
    }
    last_call_ = call;
    if (watchdog_->fired()) throw sdk::Error(OPCERT_ERROR_TIMEOUT, late_message());
    std::lock_guard lock(mutex_);
    if (aborted_) throw sdk::Error(OPCERT_ERROR_ABORTED, std::string(call) + ": the NCCL communicator was aborted");
    if (r != ncclSuccess) {
      fail_locked(call, r);
    }
  }

  // On the non-blocking communicator (NCCL before 2.18): queued under the lock, then polled until
  // NCCL took it (its launch thread), bounded by the deadline.
  void enqueue_non_blocking(const CollectivePlan& plan, const sdk::CollectiveArgs& a, const void* send,
                            Clock::time_point until) {
    const char* call = "";
    {
      std::lock_guard lock(mutex_);
      throw_if_aborted_locked();
      const ncclResult_t r = enqueue(comm_, plan, a, send, call);
      if (r != ncclSuccess && r != ncclInProgress) {
        fail_locked(call, r);
      }
    }
    last_call_ = call;
    settle_or_throw(comm_, call, until, [this] { return late_message(); });
  }

  void abort_locked() {
    if (splitting_ != nullptr) ncclCommAbort(splitting_);
    if (comm_ != nullptr) ncclCommAbort(comm_);
    splitting_ = nullptr;
    comm_ = nullptr;
    aborted_ = true;
  }

  void throw_if_aborted() {
    std::lock_guard lock(mutex_);
    throw_if_aborted_locked();
  }

  void throw_if_aborted_locked() const {
    if (aborted_) throw sdk::Error(OPCERT_ERROR_ABORTED, "the NCCL communicator was aborted; make a new one");
  }

  // An NCCL call failed: every communicator aborted, DEVICE naming the call and NCCL's error
  // (composed before the abort, which may clear NCCL's last error). Called with the mutex held.
  [[noreturn]] void fail_locked(const char* call, ncclResult_t result) {
    const std::string why = nccl_failure(call, result);
    abort_locked();
    throw sdk::Error(OPCERT_ERROR_DEVICE, why);
  }

  // Destroys `comm` once the finalize that returned `finalized` settled by `until`; aborts it
  // otherwise (a finalize that failed or did not settle may leave work a destroy would wait for).
  static void close_finalized(ncclComm_t comm, ncclResult_t finalized, Clock::time_point until) {
    if ((finalized == ncclSuccess || finalized == ncclInProgress) && settled(comm, until) == ncclSuccess)
      ncclCommDestroy(comm);
    else
      ncclCommAbort(comm);
  }

  // Queues the plan's NCCL calls on `comm`; `call` names them (for messages). Takes no lock.
  ncclResult_t enqueue(ncclComm_t comm, const CollectivePlan& plan, const sdk::CollectiveArgs& a, const void* send,
                       const char*& call) {
    const auto count = static_cast<std::size_t>(a.count);
    const ncclDataType_t type = nccl_type(a.dtype);
    switch (plan.call) {
      case NcclCall::kAllReduce:
        call = "ncclAllReduce";
        return ncclAllReduce(send, a.y, count, type, nccl_op(plan.reduction), comm, ctx_.stream);
      case NcclCall::kReduceScatter:
        call = "ncclReduceScatter";
        return ncclReduceScatter(send, a.y, count, type, nccl_op(plan.reduction), comm, ctx_.stream);
      case NcclCall::kAllGather:
        call = "ncclAllGather";
        return ncclAllGather(send, a.y, count, type, comm, ctx_.stream);
      case NcclCall::kBroadcast:
        call = "ncclBroadcast";
        return ncclBroadcast(send, a.y, count, type, a.root, comm, ctx_.stream);
      case NcclCall::kSendRecvGroup: {
        call = "ncclSend/ncclRecv group";
        const std::size_t block = count * sdk::dtype_size(a.dtype);
        ncclResult_t r = ncclGroupStart();
        for (int peer = 0; peer < nranks_ && r == ncclSuccess; ++peer) {
          r = ncclSend(static_cast<const std::byte*>(send) + peer * block, count, type, peer, comm, ctx_.stream);
          if (r == ncclSuccess) r = ncclRecv(a.y + peer * block, count, type, peer, comm, ctx_.stream);
        }
        const ncclResult_t end = ncclGroupEnd();  // always closes the group, also after a failed call in it
        return r == ncclSuccess ? end : r;
      }
      case NcclCall::kNothing: break;
    }
    return ncclSuccess;
  }

  // Polls `comm`'s state until it is no longer ncclInProgress or `until` passed; the last state
  // (ncclInProgress when the deadline passed). Called with the mutex held.
  static ncclResult_t settled(ncclComm_t comm, Clock::time_point until) {
    const PollPacer pacer;
    for (;;) {
      ncclResult_t state = ncclSuccess;
      const ncclResult_t r = ncclCommGetAsyncError(comm, &state);
      if (r != ncclSuccess) return r;
      if (state != ncclInProgress || Clock::now() >= until) return state;
      pacer.pause();
    }
  }

  // `comm`'s state, ncclSuccess or ncclInProgress; on ABORTED or an NCCL error (every communicator
  // then aborted) throws, naming `call`. Called with the mutex held.
  ncclResult_t state_or_throw(ncclComm_t comm, const char* call) {
    if (aborted_ || comm == nullptr)
      throw sdk::Error(OPCERT_ERROR_ABORTED, std::string(call) + ": the NCCL communicator was aborted");
    ncclResult_t state = ncclSuccess;
    const ncclResult_t r = ncclCommGetAsyncError(comm, &state);
    const ncclResult_t now = r != ncclSuccess ? r : state;
    if (now == ncclSuccess || now == ncclInProgress) return now;
    fail_locked(call, now);
  }

  // Waits, the mutex released between polls, until `comm` settled; on an error or at the deadline
  // aborts every communicator and throws (DEVICE naming `call`, or TIMEOUT with `late()`, which is
  // only composed then).
  template <class LateMessage>
  void settle_or_throw(ncclComm_t comm, const char* call, Clock::time_point until, const LateMessage& late) {
    const PollPacer pacer;
    for (;;) {
      {
        std::lock_guard lock(mutex_);
        if (state_or_throw(comm, call) == ncclSuccess) return;
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
  ncclComm_t comm_ = nullptr;       // the collectives' communicator
  ncclComm_t splitting_ = nullptr;  // the blocking one while ncclCommSplit makes it
  bool aborted_ = false;
  // Set once the collectives run on a blocking communicator: bounds each NCCL call on the host.
  std::unique_ptr<HostCallWatchdog> watchdog_;
  // The last collective queued, for the messages of a later wait.
  Collective last_op_ = Collective::kAllReduce;
  int64_t last_count_ = 0;
  const char* last_call_ = "NCCL";
};

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
