// The LibTorch backend, the alignment peer: every op of docs/OPS.md run through LibTorch in its
// operands' native dtype, what a framework user gets; collectives through torch.distributed's
// c10d process groups (collectives/, docs/TORCH.md). It lists every CUDA device torch sees (an
// MPI rank takes its local rank's) and runs on the host when there is none.
#include <opcert/sdk/backend.h>

#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "device_memory.h"
#include "pending_outputs.h"
#include "tensor_bridge.h"
#include "torch_events.h"
#include "torch_implementations.h"
#include "torch_version.h"

#if OPCERT_TORCH_HAS_C10D
#include "collectives/collective_impls.h"
#endif

struct opcert_event {
  opcert::torch_backend::TorchEvent event;
};

namespace opcert::torch_backend {
namespace {

#if OPCERT_TORCH_HAS_C10D
using CollectivesPart = TorchCollectives;
constexpr bool kWithCollectives = true;
#else
constexpr bool kWithCollectives = false;
// A LibTorch without a usable c10d process group: no collective keys, no communicator entries.
struct CollectivesPart {
  explicit CollectivesPart(const sdk::Backend&) {}
  std::vector<sdk::Implementation> implementations() { return {}; }
  void drain(opcert_device) {}
};
#endif

class TorchBackend : public sdk::Backend, public sdk::EventBackend, public sdk::OutputPublisher, public CollectivesPart {
 public:
  static constexpr bool kHasEvents = true;
  static constexpr bool kHasCollectives = kWithCollectives;
  static constexpr bool kPublishesOutputs = true;

  TorchBackend() : CollectivesPart(static_cast<const sdk::Backend&>(*this)) {
    for (std::size_t i = 0; i < cuda_device_count(); ++i)
      memory_.push_back(std::make_unique<DeviceMemory>(at::Device(at::kCUDA, static_cast<c10::DeviceIndex>(i))));
    // Every op file registered its own (torch_implementations.h).
    for (auto& impl : TorchImplementations::make_all()) add(std::move(impl));
    for (auto& impl : CollectivesPart::implementations()) add(std::move(impl));
  }

  sdk::BackendInfo info() const override {
    return {"torch", TORCH_VERSION, "PyTorch (LibTorch)", "ops through LibTorch in their native dtype (alignment peer)"};
  }

  std::vector<sdk::DeviceInfo> devices() const override {
    std::vector<sdk::DeviceInfo> list;
    for (std::size_t i = 0; i < memory_.size(); ++i)
      list.push_back({{OPCERT_DEVICE_CUDA, static_cast<int32_t>(i)}, "CUDA device " + std::to_string(i) + " (LibTorch)", 0, 0});
    if (!list.empty()) return list;
    const auto threads = static_cast<int32_t>(std::thread::hardware_concurrency());
    return {sdk::DeviceInfo{{OPCERT_DEVICE_CPU, 0}, "host CPU (LibTorch)", 0, threads}};
  }

  // Host memory (the host device, or a host buffer on a GPU machine) comes from the SDK's
  // default; CUDA memory from torch's caching allocator on the named device.
  void* allocate(opcert_device device, uint64_t bytes, uint64_t alignment) override {
    DeviceMemory* m = memory_of(device);
    return m != nullptr ? m->allocate(bytes, alignment) : Backend::allocate(device, bytes, alignment);
  }
  void free(opcert_device device, void* data) override {
    DeviceMemory* m = memory_of(device);
    m != nullptr ? m->free(data) : Backend::free(device, data);
  }
  void copy(opcert_device device, opcert_copy_kind kind, void* dst, const void* src, uint64_t bytes) override {
    DeviceMemory* m = memory_of(device);
    m != nullptr ? m->copy(kind, dst, src, bytes) : Backend::copy(device, kind, dst, src, bytes);
  }
  void synchronize(opcert_device device) override {
    drain(device);  // the collectives queued on this device, each bounded by its communicator's timeout
    DeviceMemory* m = memory_of(device);
    m != nullptr ? m->synchronize() : Backend::synchronize(device);
  }

  // A host of ABI minor >= 1 publishes after timing: the ops keep their fresh results pending.
  void set_host_abi_minor(int32_t minor) override {
    Backend::set_host_abi_minor(minor);
    pending_outputs().enable(minor >= 1);
  }
  uint64_t publish_outputs(const sdk::OpCall& call) override { return pending_outputs().publish(call); }

  opcert_event* event_create(opcert_device device) override {
    return new opcert_event{TorchEvent(memory_of(device) != nullptr ? at::Device(at::kCUDA, static_cast<c10::DeviceIndex>(device.index))
                                                                    : at::Device(at::kCPU))};
  }
  void event_destroy(opcert_event* e) override { delete e; }
  void event_record(opcert_event* e) override { e->event.record(); }
  double event_elapsed_ms(opcert_event* start, opcert_event* stop) override { return stop->event.elapsed_since(start->event); }

 private:
  // The CUDA device's memory; nullptr for the host. An unknown CUDA index is an error.
  DeviceMemory* memory_of(opcert_device device) const {
    if (device.type != OPCERT_DEVICE_CUDA) return nullptr;
    if (device.index < 0 || static_cast<std::size_t>(device.index) >= memory_.size())
      throw sdk::Error(OPCERT_ERROR_NOT_FOUND, "the torch backend has no CUDA device " + std::to_string(device.index));
    return memory_[static_cast<std::size_t>(device.index)].get();
  }

  std::vector<std::unique_ptr<DeviceMemory>> memory_;  // one per CUDA device; empty on the host
};

}  // namespace
}  // namespace opcert::torch_backend

OPCERT_SDK_DEFINE_BUILTIN(opcert_torch_backend_get_api, opcert::torch_backend::TorchBackend)
