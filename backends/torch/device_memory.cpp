#include "device_memory.h"

#include <opcert/backend_abi.h>
#include <opcert/sdk/error.h>
#include <torch/cuda.h>

#include <string>

namespace opcert::torch_backend {

void* DeviceMemory::allocate(uint64_t bytes, uint64_t alignment) {
  // The caching allocator aligns to 512 bytes; over-allocate for anything stricter.
  const uint64_t extra = alignment > 512 ? alignment : 0;
  at::Tensor buffer;
  try {
    buffer = at::empty({static_cast<int64_t>(bytes + extra + 1)}, at::TensorOptions().dtype(at::kByte).device(device_));
  } catch (const c10::Error& e) {
    throw sdk::Error(OPCERT_ERROR_OUT_OF_MEMORY, "allocation of " + std::to_string(bytes) + " bytes failed: " + e.what_without_backtrace());
  }
  auto address = reinterpret_cast<uintptr_t>(buffer.data_ptr());
  if (extra != 0) address = (address + alignment - 1) / alignment * alignment;
  void* data = reinterpret_cast<void*>(address);
  std::lock_guard lock(mutex_);
  buffers_.emplace(data, std::move(buffer));
  return data;
}

void DeviceMemory::free(void* data) {
  std::lock_guard lock(mutex_);
  if (buffers_.erase(data) == 0) throw sdk::Error(OPCERT_ERROR_INVALID_ARGUMENT, "free of a pointer this backend did not allocate");
}

at::Tensor DeviceMemory::view(void* data, uint64_t bytes, bool on_device) const {
  const auto options = at::TensorOptions().dtype(at::kByte).device(on_device ? device_ : at::Device(at::kCPU));
  return at::from_blob(data, {static_cast<int64_t>(bytes)}, options);
}

void DeviceMemory::copy(int32_t kind, void* dst, const void* src, uint64_t bytes) {
  if (bytes == 0) return;
  const bool dst_device = kind != OPCERT_COPY_DEVICE_TO_HOST, src_device = kind != OPCERT_COPY_HOST_TO_DEVICE;
  view(dst, bytes, dst_device).copy_(view(const_cast<void*>(src), bytes, src_device));
  synchronize();
}

void DeviceMemory::synchronize() {
  if (device_.is_cuda()) torch::cuda::synchronize(device_.index());
}

}  // namespace opcert::torch_backend
