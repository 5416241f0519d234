#include "collectives/torch_comm.h"

#include <opcert/sdk/error.h>

#include <condition_variable>
#include <exception>
#include <sstream>
#include <thread>
#include <vector>

namespace opcert::torch_backend {
namespace {

using Clock = TorchComm::Clock;

std::string seconds_text(std::chrono::milliseconds t) {
  std::ostringstream out;
  out << static_cast<double>(t.count()) / 1000.0 << " s";
  return out.str();
}

// Keeps what an abandoned c10d call may still touch until the process ends (never freed, and
// the store itself is leaked on purpose, so no exit-time destructor waits on a stuck thread).
void park(std::shared_ptr<void> keep) {
  static auto* mutex = new std::mutex;
  static auto* parked = new std::vector<std::shared_ptr<void>>;
  const std::lock_guard lock(*mutex);
  parked->push_back(std::move(keep));
}

// True once `work` completed, false at the deadline or when `stop` is set. Sleeps between polls
// after a while: tests run four ranks on two cores.
bool completed_by(c10d::Work& work, Clock::time_point deadline, const std::atomic<bool>& stop) {
  for (int spins = 0;; ++spins) {
    if (work.isCompleted()) return true;
    if (stop || Clock::now() >= deadline) return false;
    if (spins < 200) std::this_thread::yield();
    else std::this_thread::sleep_for(std::chrono::microseconds(100));
  }
}

// Rethrows a completed work's failure as a DEVICE error.
void check(c10d::Work& work) {
  if (auto failure = work.exception()) {
    try {
      std::rethrow_exception(failure);
    } catch (const std::exception& e) {
      throw sdk::Error(OPCERT_ERROR_DEVICE, std::string("c10d collective failed: ") + e.what());
    }
  }
}

at::ScalarType aten_dtype(int32_t dtype) {
  switch (dtype) {
    case OPCERT_DTYPE_F16: return at::kHalf;
    case OPCERT_DTYPE_BF16: return at::kBFloat16;
    case OPCERT_DTYPE_I32: return at::kInt;
    default: return at::kFloat;
  }
}

// What the setup thread hands back, shared so that an abandoned thread can still finish.
struct Setup {
  std::mutex mutex;
  std::condition_variable done_cv;
  bool done = false;
  std::atomic<bool> abandoned{false};
  std::shared_ptr<ProcessGroup> group;
  c10::intrusive_ptr<c10d::Store> store;
  std::exception_ptr error;
};

// Joins the store, builds the group and runs one tiny all_reduce through it, so that the
// transport (NCCL creates its communicator at the first call) has formed before the deadline.
void set_up(const std::shared_ptr<Setup>& s, Transport transport, at::Device device, int rank, int nranks, RendezvousId id,
            c10::intrusive_ptr<c10d::Store> server, std::chrono::milliseconds timeout, Clock::time_point deadline) {
  try {
    auto store = join_rendezvous(id, std::move(server), timeout);
    std::shared_ptr<ProcessGroup> group = transport == Transport::kGloo ? make_gloo_group(store, rank, nranks, timeout)
                                                                       : make_nccl_group(store, rank, nranks, timeout);
    sdk::CollectiveArgs probe;
    probe.dtype = OPCERT_DTYPE_I32;
    probe.count = 1;
    probe.in_place = true;
    const at::Tensor one = at::ones({1}, at::TensorOptions().dtype(at::kInt).device(device));
    Launched launched = group->launch(probe, one, one);
    if (!completed_by(*launched.work, deadline, s->abandoned)) {
      park(group);  // its first call may still be in flight
      return;
    }
    check(*launched.work);
    const std::lock_guard lock(s->mutex);
    s->group = std::move(group);
    s->store = std::move(store);
  } catch (...) {
    const std::lock_guard lock(s->mutex);
    s->error = std::current_exception();
  }
  const std::lock_guard lock(s->mutex);
  s->done = true;
  s->done_cv.notify_all();
}

}  // namespace

TorchComm::TorchComm(at::Device device, int rank, int nranks, std::chrono::milliseconds timeout)
    : device_(device), rank_(rank), nranks_(nranks), timeout_(timeout),
      transport_(device.is_cuda() ? Transport::kNccl : Transport::kGloo), missing_(transport_missing(transport_)) {}

std::unique_ptr<TorchComm> TorchComm::create(at::Device device, int rank, int nranks, const RendezvousId& id,
                                             c10::intrusive_ptr<c10d::Store> server, std::chrono::milliseconds timeout) {
  if (nranks < 1 || rank < 0 || rank >= nranks)
    throw sdk::Error(OPCERT_ERROR_INVALID_ARGUMENT, "rank " + std::to_string(rank) + " of " + std::to_string(nranks));
  std::unique_ptr<TorchComm> comm(new TorchComm(device, rank, nranks, timeout));
  if (!comm->missing_.empty()) return comm;  // forms without a group; its collectives say why
  prepare_environment(comm->transport_);
  const auto deadline = Clock::now() + timeout;
  auto setup = std::make_shared<Setup>();
  std::thread(set_up, setup, comm->transport_, device, rank, nranks, id, std::move(server), timeout, deadline).detach();
  std::unique_lock lock(setup->mutex);
  if (!setup->done_cv.wait_until(lock, deadline, [&] { return setup->done; })) {
    setup->abandoned = true;  // the thread finishes on its own and parks what it built
    throw sdk::Error(OPCERT_ERROR_TIMEOUT, std::string("the torch backend's ") + transport_name(comm->transport_) +
                                               " process group did not form within " + seconds_text(timeout) +
                                               " (a rank is missing, or rank 0's store at " + id.host + ":" +
                                               std::to_string(id.port) + " cannot be reached: set MASTER_ADDR)");
  }
  if (setup->error) {
    try {
      std::rethrow_exception(setup->error);
    } catch (const sdk::Error&) {
      throw;
    } catch (const std::exception& e) {
      throw sdk::Error(OPCERT_ERROR_DEVICE, std::string("cannot form the torch backend's ") + transport_name(comm->transport_) +
                                                " process group: " + e.what());
    }
  }
  comm->group_ = std::move(setup->group);
  comm->store_ = std::move(setup->store);
  return comm;
}

TorchComm::~TorchComm() {
  for (auto& p : pending_)
    if (!p.launched.work->isCompleted()) abandoned_ = true;
  if (!abandoned_) return;
  // Work that never completed may still be running in c10d: keep all it can touch.
  auto keep = std::make_shared<std::pair<std::shared_ptr<ProcessGroup>, std::deque<Pending>>>(group_, std::move(pending_));
  park(keep);
  park(std::shared_ptr<void>(new c10::intrusive_ptr<c10d::Store>(store_)));
}

void TorchComm::run(const sdk::CollectiveArgs& a) {
  if (aborted_) throw sdk::Error(OPCERT_ERROR_ABORTED, "the communicator was aborted");
  if (!group_) throw sdk::Error(OPCERT_ERROR_UNSUPPORTED, missing_);
  if (a.count == 0) return;
  const auto options = at::TensorOptions().dtype(aten_dtype(a.dtype)).device(device_);
  const int64_t width = static_cast<int64_t>(sdk::dtype_size(a.dtype));
  const at::Tensor x = at::from_blob(const_cast<std::byte*>(a.x), {static_cast<int64_t>(a.x_bytes) / width}, options);
  const at::Tensor y = at::from_blob(a.y, {static_cast<int64_t>(a.y_bytes) / width}, options);
  Pending p{{}, Clock::now() + timeout_};
  try {
    p.launched = group_->launch(a, x, y);
  } catch (const c10::Error& e) {
    throw sdk::Error(OPCERT_ERROR_DEVICE, std::string("c10d refused the collective: ") + e.what_without_backtrace());
  }
  const bool complete_now = static_cast<bool>(p.launched.finish);  // Gloo: finish writes y
  {
    const std::lock_guard lock(mutex_);
    // Forget what already completed, so that a long benchmark loop holds few tensors.
    while (!pending_.empty() && pending_.front().launched.work->isCompleted()) {
      check(*pending_.front().launched.work);
      pending_.pop_front();
    }
    pending_.push_back(std::move(p));  // held here even if the wait gives up (see ~TorchComm)
  }
  if (complete_now) drain();
}

void TorchComm::wait(Pending& p) {
  if (!completed_by(*p.launched.work, p.deadline, aborted_)) {
    abandoned_ = true;
    if (aborted_) throw sdk::Error(OPCERT_ERROR_ABORTED, "the communicator was aborted");
    throw sdk::Error(OPCERT_ERROR_TIMEOUT, std::string("a ") + transport_name(transport_) + " collective did not complete within " +
                                               seconds_text(timeout_) + " (a rank did not take part)");
  }
  check(*p.launched.work);
  if (p.launched.finish) p.launched.finish();
}

void TorchComm::drain() {
  const std::lock_guard lock(mutex_);
  while (!pending_.empty()) {
    wait(pending_.front());
    pending_.pop_front();
  }
}

void TorchComm::abort() {
  aborted_ = true;
  if (group_) group_->abort();
}

}  // namespace opcert::torch_backend
