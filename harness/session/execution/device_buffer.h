// A buffer in a backend's device memory, freed on destruction; outputs carry guard regions on
// both sides so a write outside the tensor is seen when the buffer comes back.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "loader/backend_handle.h"

namespace opcert {

class DeviceBuffer {
 public:
  /// Bytes of canary on each side of an output; larger than any element and than a vector store.
  static constexpr std::size_t kGuardBytes = 256;

  /// An input holding `bytes` copied from the host.
  static DeviceBuffer input(BackendHandle& backend, opcert_device device, const std::vector<std::byte>& bytes);
  /// An output of `bytes`, pre-filled with 0xFF (NaN in every float dtype, so an element the
  /// backend never writes fails the comparison) between two canary guards.
  static DeviceBuffer guarded_output(BackendHandle& backend, opcert_device device, std::size_t bytes);

  DeviceBuffer(DeviceBuffer&& other) noexcept;
  DeviceBuffer& operator=(DeviceBuffer&&) = delete;
  DeviceBuffer(const DeviceBuffer&) = delete;
  ~DeviceBuffer();

  /// Where the tensor starts (after the front guard for outputs).
  void* data() const;

  /// Copies the tensor back; for an output also checks both guards. Returns "" when intact, else
  /// a description of the first bytes changed outside the tensor.
  std::string read_back(std::vector<std::byte>& tensor_bytes);

 private:
  DeviceBuffer(BackendHandle& backend, opcert_device device, std::size_t tensor_bytes, bool guarded);

  BackendHandle* backend_;
  opcert_device device_;
  std::size_t tensor_bytes_;
  bool guarded_;
  void* base_ = nullptr;
};

}  // namespace opcert
