// The LibTorch backend, the alignment peer: every op of docs/OPS.md (collectives aside) run
// through LibTorch in its operands' native dtype, what a framework user gets. It runs on CUDA
// device 0 when torch sees a GPU and on the host otherwise.
#include <opcert/sdk/backend.h>
#include <torch/cuda.h>

#include <memory>
#include <thread>

#include "device_memory.h"
#include "torch_events.h"
#include "ops/torch_ops.h"
#include "torch_version.h"

struct opcert_event {
  opcert::torch_backend::TorchEvent event;
};

namespace opcert::torch_backend {
namespace {

class TorchBackend : public sdk::Backend, public sdk::EventBackend {
 public:
  static constexpr bool kHasEvents = true;

  TorchBackend() {
    if (torch::cuda::is_available()) memory_ = std::make_unique<DeviceMemory>(at::Device(at::kCUDA, 0));
    for (auto family : {gemm_implementations, gemm_fp8_implementations, gemm_int8_implementations,
                        quantize_implementations, attention_implementations, norm_implementations,
                        rope_implementations, softmax_implementations})
      for (auto& impl : family()) add(std::move(impl));
  }

  sdk::BackendInfo info() const override {
    return {"torch", TORCH_VERSION, "PyTorch (LibTorch)", "ops through LibTorch in their native dtype (alignment peer)"};
  }

  std::vector<sdk::DeviceInfo> devices() const override {
    if (memory_) return {sdk::DeviceInfo{{OPCERT_DEVICE_CUDA, 0}, "CUDA device 0 (LibTorch)", 0, 0}};
    const auto threads = static_cast<int32_t>(std::thread::hardware_concurrency());
    return {sdk::DeviceInfo{{OPCERT_DEVICE_CPU, 0}, "host CPU (LibTorch)", 0, threads}};
  }

  void* allocate(opcert_device device, uint64_t bytes, uint64_t alignment) override {
    return memory_ ? memory_->allocate(bytes, alignment) : Backend::allocate(device, bytes, alignment);
  }
  void free(opcert_device device, void* data) override { memory_ ? memory_->free(data) : Backend::free(device, data); }
  void copy(opcert_device device, opcert_copy_kind kind, void* dst, const void* src, uint64_t bytes) override {
    memory_ ? memory_->copy(kind, dst, src, bytes) : Backend::copy(device, kind, dst, src, bytes);
  }
  void synchronize(opcert_device device) override { memory_ ? memory_->synchronize() : Backend::synchronize(device); }

  opcert_event* event_create(opcert_device) override {
    return new opcert_event{TorchEvent(memory_ ? at::Device(at::kCUDA, 0) : at::Device(at::kCPU))};
  }
  void event_destroy(opcert_event* e) override { delete e; }
  void event_record(opcert_event* e) override { e->event.record(); }
  double event_elapsed_ms(opcert_event* start, opcert_event* stop) override { return stop->event.elapsed_since(start->event); }

 private:
  std::unique_ptr<DeviceMemory> memory_;  // null on the host
};

}  // namespace
}  // namespace opcert::torch_backend

OPCERT_SDK_DEFINE_BUILTIN(opcert_torch_backend_get_api, opcert::torch_backend::TorchBackend)
