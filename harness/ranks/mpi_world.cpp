// The MPI world: non-blocking MPI calls polled against each deadline, so that no wait outlives it.
#include <mpi.h>

#include <fmt/format.h>

#include <cstdio>
#include <iterator>
#include <list>
#include <stdexcept>
#include <thread>

#include "model/input_error.h"
#include "ranks/launch_env.h"
#include "ranks/mpi_world.h"

namespace opcert {
namespace {

constexpr int kResultTag = 7001;

// Polls until the request completes or the deadline passes. A request left pending is
// abandoned with its buffer (the caller keeps it alive): the job is about to end.
bool wait_until(MPI_Request& request, Deadline deadline) {
  for (int spins = 0;; ++spins) {
    int done = 0;
    if (MPI_Test(&request, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS) return false;
    if (done) return true;
    if (std::chrono::steady_clock::now() >= deadline) return false;
    // Yield first (latency), then sleep (ranks may share cores when oversubscribed).
    if (spins < 100) std::this_thread::yield();
    else std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
}

class MpiWorld final : public World {
 public:
  MpiWorld() {
#ifdef OPEN_MPI
    // Refused before MPI_Init, which would abort the job with Open MPI's page about rebuilding Slurm.
    if (const std::string why = open_mpi_join_problem(read_launch_env()); !why.empty()) throw InputError(why);
#endif
    int provided = 0;
    if (MPI_Init_thread(nullptr, nullptr, MPI_THREAD_MULTIPLE, &provided) != MPI_SUCCESS)
      throw std::runtime_error("MPI_Init_thread failed");
    // The rank watchdog calls MPI from its own thread (send_to_root, MPI_Abort) while the rank's
    // thread may be inside a collective: anything less than MULTIPLE makes that undefined.
    if (provided < MPI_THREAD_MULTIPLE) {
      MPI_Finalize();  // every rank of the job sees the same library, so all end here together
      throw std::runtime_error(fmt::format(
          "the MPI library gives thread level {} where opcert needs MPI_THREAD_MULTIPLE ({}): its watchdog "
          "calls MPI from a second thread; use an MPI built with thread support (Open MPI and MPICH are by default)",
          provided, MPI_THREAD_MULTIPLE));
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
    // The ranks sharing this host's memory are the ranks of this node, whatever the launcher says.
    MPI_Comm node = MPI_COMM_NULL;
    int node_rank = 0;
    if (MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &node) == MPI_SUCCESS) {
      MPI_Comm_size(node, &local_size_);
      MPI_Comm_rank(node, &node_rank);
      MPI_Comm_free(&node);
    }
    const LaunchEnv env = read_launch_env();
    local_rank_ = env.local_rank.value_or(node_rank);
  }

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  int local_rank() const override { return local_rank_; }
  int local_size() const override { return local_size_; }
  std::string launcher() const override { return "mpi"; }
  std::string single_rank_reason() const override { return ""; }
  std::string library_version() const override {
    char text[MPI_MAX_LIBRARY_VERSION_STRING];
    int length = 0;
    MPI_Get_library_version(text, &length);
    const std::string all(text, static_cast<std::size_t>(length));
    return all.substr(0, all.find_first_of(std::string("\r\n\0", 3)));  // the length counts the NUL
  }

  bool broadcast(std::vector<uint8_t>& bytes, int root, Deadline deadline) override {
    const auto buffer = keep(bytes);
    MPI_Request request;
    if (MPI_Ibcast(buffer->data(), static_cast<int>(buffer->size()), MPI_BYTE, root, MPI_COMM_WORLD, &request) !=
        MPI_SUCCESS)
      return false;
    if (!wait_until(request, deadline)) return false;
    bytes = *buffer;
    pending_.erase(buffer);
    return true;
  }

  std::optional<int64_t> all_min(int64_t value, Deadline deadline) override {
    const auto buffer = keep(std::vector<uint8_t>(2 * sizeof(int64_t)));
    auto* io = reinterpret_cast<int64_t*>(buffer->data());
    io[0] = value;
    MPI_Request request;
    if (MPI_Iallreduce(&io[0], &io[1], 1, MPI_INT64_T, MPI_MIN, MPI_COMM_WORLD, &request) != MPI_SUCCESS)
      return std::nullopt;
    if (!wait_until(request, deadline)) return std::nullopt;
    const int64_t result = io[1];
    pending_.erase(buffer);
    return result;
  }

  bool send_to_root(const std::string& message, Deadline deadline) override {
    const auto buffer = keep(std::vector<uint8_t>(message.begin(), message.end()));
    MPI_Request request;
    if (MPI_Isend(buffer->data(), static_cast<int>(buffer->size()), MPI_BYTE, 0, kResultTag, MPI_COMM_WORLD, &request) !=
        MPI_SUCCESS)
      return false;
    if (!wait_until(request, deadline)) return false;
    pending_.erase(buffer);
    return true;
  }

  std::optional<std::string> receive_from(int from, Deadline deadline) override {
    for (int spins = 0;; ++spins) {
      int ready = 0;
      MPI_Status status;
      if (MPI_Iprobe(from, kResultTag, MPI_COMM_WORLD, &ready, &status) != MPI_SUCCESS) return std::nullopt;
      if (ready) {
        int bytes = 0;
        MPI_Get_count(&status, MPI_BYTE, &bytes);
        std::string message(static_cast<std::size_t>(bytes), '\0');
        if (MPI_Recv(message.data(), bytes, MPI_BYTE, from, kResultTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE) != MPI_SUCCESS)
          return std::nullopt;
        return message;
      }
      if (std::chrono::steady_clock::now() >= deadline) return std::nullopt;
      if (spins < 100) std::this_thread::yield();
      else std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
  }

  [[noreturn]] void abort_job(int code) override {
    std::fflush(nullptr);
    MPI_Abort(MPI_COMM_WORLD, code);
    std::_Exit(code);  // MPI_Abort does not return; this is for an MPI that does
  }

  void finalize() override {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized) MPI_Finalize();
  }

 private:
  using Pending = std::list<std::vector<uint8_t>>;
  // The buffer of an operation in flight. One abandoned at a deadline stays here for good: a late
  // peer could still write into it. Completed ones are released at once.
  Pending::iterator keep(std::vector<uint8_t> bytes) {
    pending_.push_back(std::move(bytes));
    return std::prev(pending_.end());
  }

  int rank_ = 0;
  int size_ = 1;
  int local_rank_ = 0;
  int local_size_ = 1;
  Pending pending_;
};

}  // namespace

std::unique_ptr<World> make_mpi_world() { return std::make_unique<MpiWorld>(); }

}  // namespace opcert
