// The example NPU backend: identity, its one device, its memory, its implementations, and the
// plugin's exported entry point. A real vendor backend keeps this shape and calls its driver
// where the comments say so.
#include <opcert/sdk/backend.h>

#include "softmax.h"

#ifndef EXAMPLE_NPU_VERSION
#define EXAMPLE_NPU_VERSION "0.0.0"
#endif

namespace example_npu {
namespace {

namespace sdk = opcert::sdk;

constexpr opcert_device kNpu{OPCERT_DEVICE_OTHER, 0};

class ExampleNpuBackend : public sdk::Backend {
 public:
  ExampleNpuBackend() {
    // Keys are "<backend>.<op>.<variant>"; one op may have several variants (e.g. a fused kernel
    // next to a reference one), and the platform config says which is production. Each reads its
    // calls with the op's SDK parser (opcert/sdk/ops/<op>.h): see softmax.cpp.
    add(softmax_implementation());
  }

  sdk::BackendInfo info() const override {
    return {.name = "example_npu",
            .version = EXAMPLE_NPU_VERSION,
            .vendor = "Example Vendor",
            .description = "example out-of-tree plugin: an NPU simulated in host memory"};
  }

  // memory_bytes and compute_units 0 mean "unknown"; a real backend asks its driver.
  std::vector<sdk::DeviceInfo> devices() const override {
    return {sdk::DeviceInfo{kNpu, "Example NPU (host-memory simulation)", 0, 0}};
  }

  // Memory. The simulated NPU's memory is host memory, so the SDK's defaults (aligned_alloc,
  // memcpy) do the work; a real NPU calls its driver's allocate/free/copy/sync here instead.
  void* allocate(opcert_device device, uint64_t bytes, uint64_t alignment) override {
    check(device);
    return sdk::Backend::allocate(device, bytes, alignment);
  }
  void free(opcert_device device, void* data) override {
    check(device);
    sdk::Backend::free(device, data);
  }
  void copy(opcert_device device, opcert_copy_kind kind, void* dst, const void* src, uint64_t bytes) override {
    check(device);
    sdk::Backend::copy(device, kind, dst, src, bytes);
  }
  void synchronize(opcert_device device) override { check(device); }  // every op is synchronous here

 private:
  // Errors are thrown as sdk::Error; the SDK turns them into opcert_error objects at the ABI.
  static void check(opcert_device device) {
    if (device.type == kNpu.type && device.index == kNpu.index) return;
    const char* type = device.type == OPCERT_DEVICE_CPU ? "cpu" : device.type == OPCERT_DEVICE_CUDA ? "cuda" : "other";
    throw sdk::Error(OPCERT_ERROR_NOT_FOUND,
                     "example_npu has one device, other:0, not " + std::string(type) + ":" + std::to_string(device.index));
  }
};

}  // namespace
}  // namespace example_npu

// Defines `opcert_backend_get_api`, the one symbol opcert looks up in a plugin library.
OPCERT_SDK_EXPORT_PLUGIN(example_npu::ExampleNpuBackend)
