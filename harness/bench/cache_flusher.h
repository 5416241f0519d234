// The cold-cache mode of `opcert bench --cold-l2`: before each timed sample, one device-to-device
// copy through a buffer larger than the device's last-level cache evicts the op's operands, so the
// sample measures memory as a first touch would see it (nvbench and the CUTLASS profiler do the same).
#pragma once

#include <cstdint>
#include <optional>

#include "loader/backend_handle.h"

namespace opcert {

/// Bytes to flush with: the platform's cache size when known, else the host's last-level cache
/// for a CPU device, else 256 MiB (larger than any GPU L2 shipping today); doubled for margin.
uint64_t flush_bytes_for(const opcert_device& device, std::optional<uint64_t> platform_cache_bytes);

/// The largest cache size in /sys/devices/system/cpu/cpu0/cache/index*/size, if readable.
std::optional<uint64_t> host_last_level_cache_bytes();

class CacheFlusher {
 public:
  /// Allocates two buffers of `bytes` on the device. Throws BackendError.
  CacheFlusher(BackendHandle& backend, opcert_device device, uint64_t bytes);
  ~CacheFlusher();
  CacheFlusher(const CacheFlusher&) = delete;
  CacheFlusher& operator=(const CacheFlusher&) = delete;

  /// Copies one buffer over the other; complete when it returns (the ABI's copy contract).
  void flush();
  uint64_t bytes() const { return bytes_; }

 private:
  BackendHandle* backend_;
  opcert_device device_;
  uint64_t bytes_;
  void* src_ = nullptr;
  void* dst_ = nullptr;
};

}  // namespace opcert
