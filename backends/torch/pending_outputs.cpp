#include "pending_outputs.h"

#include <utility>

#include "tensor_bridge.h"

namespace opcert::torch_backend {

void PendingOutputs::keep(const sdk::Tensor& out, at::Tensor value) {
  const std::lock_guard<std::mutex> lock(mutex_);
  pending_[out.data()] = std::move(value);
}

uint64_t PendingOutputs::publish(const sdk::OpCall& call) {
  const std::lock_guard<std::mutex> lock(mutex_);
  uint64_t bytes = 0;
  for (int32_t i = 0; i < call.output_count(); ++i) {
    const sdk::Tensor out = call.output_at(i);
    const auto it = pending_.find(out.data());
    if (it == pending_.end()) continue;
    wrap(out).copy_(it->second);
    bytes += static_cast<uint64_t>(it->second.numel()) * it->second.element_size();
    pending_.erase(it);
  }
  return bytes;
}

PendingOutputs& pending_outputs() {
  static PendingOutputs instance;
  return instance;
}

}  // namespace opcert::torch_backend
