#include "bench/cache_flusher.h"

#include <filesystem>
#include <fstream>
#include <string>

namespace opcert {

std::optional<uint64_t> host_last_level_cache_bytes() {
  std::optional<uint64_t> largest;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator("/sys/devices/system/cpu/cpu0/cache", ec)) {
    std::ifstream in(entry.path() / "size");
    std::string text;
    if (!(in >> text) || text.empty()) continue;
    uint64_t value = 0;
    std::size_t i = 0;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9') value = value * 10 + static_cast<uint64_t>(text[i++] - '0');
    if (i < text.size() && (text[i] == 'K' || text[i] == 'k')) value <<= 10;
    if (i < text.size() && (text[i] == 'M' || text[i] == 'm')) value <<= 20;
    if (!largest || value > *largest) largest = value;
  }
  return largest;
}

uint64_t flush_bytes_for(const opcert_device& device, std::optional<uint64_t> platform_cache_bytes) {
  constexpr uint64_t kFallback = uint64_t{256} << 20;
  uint64_t cache = kFallback;
  if (platform_cache_bytes && *platform_cache_bytes > 0)
    cache = *platform_cache_bytes;
  else if (device.type == OPCERT_DEVICE_CPU)
    cache = host_last_level_cache_bytes().value_or(kFallback);
  return 2 * cache;
}

CacheFlusher::CacheFlusher(BackendHandle& backend, opcert_device device, uint64_t bytes)
    : backend_(&backend), device_(device), bytes_(bytes) {
  src_ = backend.allocate(device, bytes);
  try {
    dst_ = backend.allocate(device, bytes);
  } catch (...) {
    backend.free(device, src_);
    throw;
  }
}

CacheFlusher::~CacheFlusher() {
  try {
    backend_->free(device_, src_);
    backend_->free(device_, dst_);
  } catch (...) {  // teardown: a failed free leaks, nothing better to do
  }
}

void CacheFlusher::flush() { backend_->copy(device_, OPCERT_COPY_DEVICE_TO_DEVICE, dst_, src_, bytes_); }

}  // namespace opcert
