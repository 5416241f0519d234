// Results torch computed into tensors of its own, waiting to be moved into opcert's outputs.
// A torch user's call returns a fresh tensor; copying it into the harness's buffer is not part of
// what that user pays, so with a host that publishes (ABI 1.1) run_op keeps the result here and
// publish_outputs copies it after the timed region. The check still reads opcert's buffer.
#pragma once

#include <ATen/ATen.h>
#include <opcert/sdk/op_call.h>

#include <cstdint>
#include <map>
#include <mutex>

namespace opcert::torch_backend {

class PendingOutputs {
 public:
  /// On when the host calls publish_outputs (its ABI minor >= 1); off, results are copied at once.
  void enable(bool on) { enabled_ = on; }
  bool enabled() const { return enabled_; }

  /// Keeps `value` as the pending result of the output at `out`'s memory, replacing (and so
  /// freeing, as a torch user's loop does) the previous one.
  void keep(const sdk::Tensor& out, at::Tensor value);

  /// Copies the pending results of the call's outputs into them and forgets them; returns the
  /// bytes copied.
  uint64_t publish(const sdk::OpCall& call);

 private:
  bool enabled_ = false;
  std::mutex mutex_;
  std::map<const void*, at::Tensor> pending_;  // by the output's data pointer
};

/// The backend's one instance (ops are free functions).
PendingOutputs& pending_outputs();

}  // namespace opcert::torch_backend
