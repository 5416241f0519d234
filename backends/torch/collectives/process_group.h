// One c10d process group behind the torch backend's communicator, with the catalogue's
// collectives mapped onto its calls. Two kinds: Gloo (host memory, gloo_group.cpp) and NCCL
// (CUDA memory, nccl_group.cpp); each is compiled only when cmake/OpcertTorchC10d.cmake found it.
#pragma once

#include <ATen/ATen.h>
#include <opcert/sdk/ops/collectives.h>
#include <torch/csrc/distributed/c10d/Store.hpp>
#include <torch/csrc/distributed/c10d/Work.hpp>

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace opcert::torch_backend {

enum class Transport { kGloo, kNccl };

/// The name keys and messages use ("gloo", "nccl").
const char* transport_name(Transport t);
/// "" when this build has the transport's process group, else why not.
std::string transport_missing(Transport t);

/// A collective handed to the process group.
struct Launched {
  c10::intrusive_ptr<c10d::Work> work;
  std::vector<at::Tensor> keep_alive;  // what the work reads or writes, held until it completed
  std::function<void()> finish;        // run once the work completed (copy out of staging); may be empty
};

class ProcessGroup {
 public:
  virtual ~ProcessGroup() = default;
  virtual Transport transport() const = 0;
  /// Starts the collective on x and y (views of the caller's memory, y possibly aliasing x).
  /// NCCL: queued on the device, the current stream ordered after it, finish empty. Gloo: runs
  /// on staging copies; finish writes y.
  virtual Launched launch(const sdk::CollectiveArgs& args, const at::Tensor& x, const at::Tensor& y) = 0;
  /// Abandons what is in flight (NCCL: aborts the communicator); the group is unusable after.
  virtual void abort() = 0;
};

/// Sets what c10d reads from the environment when it builds a group of `t` (only where the user
/// did not): for NCCL, TORCH_NCCL_ASYNC_ERROR_HANDLING=0, so that c10d's watchdog does not end
/// the process on a timed-out collective (opcert times them out and aborts the communicator).
/// Call it before starting threads that build groups: setenv is not thread-safe.
void prepare_environment(Transport t);

/// The process groups; rank, nranks and store as c10d takes them; `timeout` bounds each
/// operation inside c10d. Throw sdk::Error (UNSUPPORTED) when the build lacks the transport.
std::unique_ptr<ProcessGroup> make_gloo_group(const c10::intrusive_ptr<c10d::Store>& store, int rank, int nranks,
                                              std::chrono::milliseconds timeout);
std::unique_ptr<ProcessGroup> make_nccl_group(const c10::intrusive_ptr<c10d::Store>& store, int rank, int nranks,
                                              std::chrono::milliseconds timeout);

}  // namespace opcert::torch_backend
