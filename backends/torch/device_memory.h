// Device memory through LibTorch only (no CUDA headers): buffers are byte tensors from torch's
// caching allocator, kept alive in a map from pointer to tensor; copies are Tensor::copy_
// between from_blob views. Used when the backend runs on a CUDA device.
#pragma once

#include <ATen/ATen.h>

#include <cstdint>
#include <mutex>
#include <unordered_map>

namespace opcert::torch_backend {

class DeviceMemory {
 public:
  explicit DeviceMemory(at::Device device) : device_(device) {}

  /// A buffer of at least `bytes` (never NULL), aligned to `alignment` (a power of two).
  void* allocate(uint64_t bytes, uint64_t alignment);
  /// Releases a pointer allocate() returned; an unknown pointer is an error.
  void free(void* data);
  /// Copies between host and device (kind is an opcert_copy_kind); complete on return.
  void copy(int32_t kind, void* dst, const void* src, uint64_t bytes);
  /// Waits for all work queued on the device.
  void synchronize();

 private:
  at::Tensor view(void* data, uint64_t bytes, bool on_device) const;

  at::Device device_;
  std::mutex mutex_;
  std::unordered_map<void*, at::Tensor> buffers_;
};

}  // namespace opcert::torch_backend
