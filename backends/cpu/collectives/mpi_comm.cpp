// The CPU backend's collectives on MPI. Each communicator is its own duplicate of MPI_COMM_WORLD
// (so the harness's own messages never mix with it); every call is non-blocking and polled
// against the timeout, so a rank that never takes part gives TIMEOUT instead of a hang. The data
// goes through buffers the communicator owns: after a timeout an MPI call may still be in flight,
// so those buffers are parked for the life of the process (park) rather than freed, and the
// caller's tensors are never touched late.
#include <mpi.h>

#include <chrono>
#include <cstring>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "collectives/cpu_comm.h"
#include "collectives/half_reductions.h"

namespace opcert::cpu {
namespace {

using Clock = std::chrono::steady_clock;

// "4 s", "0.5 s": seconds as a person writes them.
std::string seconds_text(double s) {
  std::ostringstream out;
  out << s << " s";
  return out.str();
}

std::string mpi_error_text(int code) {
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(code, text, &length);
  return std::string(text, static_cast<std::size_t>(length));
}

void check_mpi(int code, const char* what) {
  if (code != MPI_SUCCESS) throw sdk::Error(OPCERT_ERROR_DEVICE, std::string(what) + " failed: " + mpi_error_text(code));
}

// Completion of `request` by `deadline`; false when it passed (the request is then abandoned).
bool poll(MPI_Request& request, Clock::time_point deadline) {
  for (int spins = 0;; ++spins) {
    int done = 0;
    check_mpi(MPI_Test(&request, &done, MPI_STATUS_IGNORE), "MPI_Test");
    if (done) return true;
    if (Clock::now() >= deadline) return false;
    // MPI progresses inside MPI_Test; sleeping between polls leaves the cores to the other ranks
    // (tests oversubscribe a 2-core machine with 4 ranks).
    if (spins < 200) std::this_thread::yield();
    else std::this_thread::sleep_for(std::chrono::microseconds(100));
  }
}

// Keeps memory that an abandoned MPI call may still write into until the process ends: a late
// peer can complete the call at any time, even after the communicator was destroyed. Never freed
// (the store itself is leaked on purpose, so no exit-time destructor frees it either).
void park(std::shared_ptr<void> memory) {
  static auto* mutex = new std::mutex;
  static auto* parked = new std::vector<std::shared_ptr<void>>;
  const std::lock_guard lock(*mutex);
  parked->push_back(std::move(memory));
}

MPI_Datatype datatype_of(int32_t dtype) {
  switch (dtype) {
    case OPCERT_DTYPE_F32: return MPI_FLOAT;
    case OPCERT_DTYPE_I32: return MPI_INT32_T;
    default: return MPI_UINT16_T;  // fp16, bf16: reduced by the ops of half_reductions.h
  }
}

MPI_Op op_of(int32_t dtype, Reduction r) {
  if (dtype == OPCERT_DTYPE_F16 || dtype == OPCERT_DTYPE_BF16) return half_reduction(dtype, r);
  switch (r) {
    case Reduction::kMax: return MPI_MAX;
    case Reduction::kMin: return MPI_MIN;
    default: return MPI_SUM;  // avg: the sum, divided afterwards
  }
}

// avg = sum / n, rounded once into the dtype (int32: truncated, as C divides).
void divide(std::vector<std::byte>& data, int32_t dtype, int n) {
  const std::size_t count = data.size() / sdk::dtype_size(dtype);
  for (std::size_t i = 0; i < count; ++i) {
    std::byte* p = data.data() + i * sdk::dtype_size(dtype);
    if (dtype == OPCERT_DTYPE_I32) {
      int32_t v;
      std::memcpy(&v, p, sizeof v);
      v /= n;
      std::memcpy(p, &v, sizeof v);
    } else if (dtype == OPCERT_DTYPE_F32) {
      float v;
      std::memcpy(&v, p, sizeof v);
      v /= static_cast<float>(n);
      std::memcpy(p, &v, sizeof v);
    } else {
      uint16_t bits;
      std::memcpy(&bits, p, sizeof bits);
      bits = half_divide(dtype, bits, n);
      std::memcpy(p, &bits, sizeof bits);
    }
  }
}

class MpiComm final : public CpuComm {
 public:
  MpiComm(MPI_Comm comm, int rank, int nranks, double timeout_seconds)
      : comm_(comm), rank_(rank), nranks_(nranks), timeout_(std::chrono::duration<double>(timeout_seconds)) {}
  ~MpiComm() override {
    // A communicator with an abandoned call is left to MPI_Finalize: freeing it could wait on it.
    if (!poisoned_) MPI_Comm_free(&comm_);
  }

  int rank() const override { return rank_; }
  int nranks() const override { return nranks_; }
  void abort() override { aborted_ = true; }

  void run(const CollectiveArgs& a) override {
    if (aborted_ || poisoned_)
      throw sdk::Error(OPCERT_ERROR_ABORTED, "the communicator was aborted after an earlier failure; make a new one");
    const auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(timeout_);
    send_.assign(a.x, a.x + a.x_bytes);
    recv_.assign(a.y_bytes, std::byte{0});
    const int count = static_cast<int>(a.count);
    const MPI_Datatype type = datatype_of(a.dtype);
    MPI_Request request = MPI_REQUEST_NULL;
    switch (a.op) {
      case Collective::kAllReduce:
        check_mpi(MPI_Iallreduce(send_.data(), recv_.data(), count, type, op_of(a.dtype, a.reduction), comm_, &request),
                  "MPI_Iallreduce");
        break;
      case Collective::kReduceScatter:
        check_mpi(MPI_Ireduce_scatter_block(send_.data(), recv_.data(), count, type, op_of(a.dtype, a.reduction), comm_,
                                            &request),
                  "MPI_Ireduce_scatter_block");
        break;
      case Collective::kAllGather:
        check_mpi(MPI_Iallgather(send_.data(), count, type, recv_.data(), count, type, comm_, &request), "MPI_Iallgather");
        break;
      case Collective::kBroadcast:
        if (rank_ == a.root) std::memcpy(recv_.data(), send_.data(), a.y_bytes);
        check_mpi(MPI_Ibcast(recv_.data(), count, type, a.root, comm_, &request), "MPI_Ibcast");
        break;
      case Collective::kAllToAll:
        check_mpi(MPI_Ialltoall(send_.data(), count, type, recv_.data(), count, type, comm_, &request), "MPI_Ialltoall");
        break;
    }
    if (!poll(request, deadline)) {
      poisoned_ = true;
      // Moving a vector keeps its heap block, the one MPI holds a pointer into.
      park(std::make_shared<std::vector<std::byte>>(std::move(send_)));
      park(std::make_shared<std::vector<std::byte>>(std::move(recv_)));
      throw sdk::Error(OPCERT_ERROR_TIMEOUT,
                       std::string(sdk::collective_name(a.op)) + " of " + std::to_string(a.count) + " element(s) per rank did not " +
                           "complete within " + seconds_text(timeout_.count()) +
                           ": a rank did not take part (it died, hangs or is far behind)");
    }
    if (a.reduction == Reduction::kAvg && (a.op == Collective::kAllReduce || a.op == Collective::kReduceScatter))
      divide(recv_, a.dtype, nranks_);
    if (a.y_bytes != 0) std::memcpy(a.y, recv_.data(), a.y_bytes);
  }

 private:
  MPI_Comm comm_;
  int rank_;
  int nranks_;
  std::chrono::duration<double> timeout_;
  bool aborted_ = false;
  bool poisoned_ = false;  // a call was abandoned at its deadline
  std::vector<std::byte> send_, recv_;
};

}  // namespace

int mpi_job_ranks() {
  int initialized = 0, finalized = 0, size = 1;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  if (initialized && !finalized) MPI_Comm_size(MPI_COMM_WORLD, &size);
  return size;
}

std::unique_ptr<CpuComm> make_mpi_comm(int rank, int nranks, uint64_t tag, double timeout_seconds) {
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  if (!initialized || finalized) return nullptr;
  int world_size = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &world_size);
  if (nranks != world_size)
    throw sdk::Error(OPCERT_ERROR_UNSUPPORTED, "the CPU backend's communicators span the whole MPI job (" +
                                                   std::to_string(world_size) + " ranks), not " + std::to_string(nranks));
  const auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(timeout_seconds));
  // What the pending calls write into (the new communicator's handle, the compared tags) lives on
  // the heap: a call given up on at the deadline keeps it, parked, instead of a dead stack frame.
  struct Setup {
    MPI_Comm comm = MPI_COMM_NULL;
    int64_t mine_tags[2] = {0, 0};
    int64_t agreed[2] = {0, 0};
  };
  auto setup = std::make_shared<Setup>();
  MPI_Request request = MPI_REQUEST_NULL;
  check_mpi(MPI_Comm_idup(MPI_COMM_WORLD, &setup->comm, &request), "MPI_Comm_idup");
  if (!poll(request, deadline)) {
    park(setup);
    throw sdk::Error(OPCERT_ERROR_TIMEOUT, "not every rank joined the communicator within " + seconds_text(timeout_seconds));
  }
  MPI_Comm_set_errhandler(setup->comm, MPI_ERRORS_RETURN);
  int mine = -1;
  MPI_Comm_rank(setup->comm, &mine);
  if (mine != rank) {
    MPI_Comm_free(&setup->comm);
    throw sdk::Error(OPCERT_ERROR_INVALID_ARGUMENT, "rank " + std::to_string(rank) + " asked for, but this process is MPI rank " +
                                                        std::to_string(mine) + "; the host must number ranks as MPI does");
  }
  // Every rank must hold rank 0's id: compare the tags (min of tag and of -tag).
  setup->mine_tags[0] = static_cast<int64_t>(tag);
  setup->mine_tags[1] = -static_cast<int64_t>(tag);
  check_mpi(MPI_Iallreduce(setup->mine_tags, setup->agreed, 2, MPI_INT64_T, MPI_MIN, setup->comm, &request), "MPI_Iallreduce");
  if (!poll(request, deadline)) {
    park(setup);  // and the communicator is not freed: its call is still pending
    throw sdk::Error(OPCERT_ERROR_TIMEOUT, "the ranks did not compare their unique ids within the timeout");
  }
  if (setup->agreed[0] != setup->mine_tags[0] || setup->agreed[1] != setup->mine_tags[1]) {
    MPI_Comm_free(&setup->comm);
    throw sdk::Error(OPCERT_ERROR_INVALID_ARGUMENT, "the ranks were given different unique ids");
  }
  return std::make_unique<MpiComm>(setup->comm, mine, nranks, timeout_seconds);
}

}  // namespace opcert::cpu
