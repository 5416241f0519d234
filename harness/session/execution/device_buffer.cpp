#include "session/execution/device_buffer.h"

#include <fmt/format.h>

#include <algorithm>

#include "model/checked_size.h"

namespace opcert {
namespace {

constexpr std::byte kCanary{0xA5};
constexpr std::byte kUnwritten{0xFF};
constexpr uint64_t kAlignment = 256;

}  // namespace

DeviceBuffer::DeviceBuffer(BackendHandle& backend, opcert_device device, std::size_t tensor_bytes, bool guarded)
    : backend_(&backend), device_(device), tensor_bytes_(tensor_bytes), guarded_(guarded) {
  const auto total = checked_add(tensor_bytes, guarded ? 2 * kGuardBytes : 0);
  if (!total) throw SizeError("", {}, fmt::format("a buffer of {} bytes with its guards does not fit 64 bits", tensor_bytes));
  base_ = backend.allocate(device, std::max<std::size_t>(*total, 1), kAlignment);
}

DeviceBuffer::DeviceBuffer(DeviceBuffer&& other) noexcept
    : backend_(other.backend_),
      device_(other.device_),
      tensor_bytes_(other.tensor_bytes_),
      guarded_(other.guarded_),
      base_(other.base_) {
  other.base_ = nullptr;
}

DeviceBuffer::~DeviceBuffer() {
  if (base_ == nullptr) return;
  try {
    backend_->free(device_, base_);
  } catch (...) {  // a destructor must not throw; the backend's error was already reported or moot
  }
}

DeviceBuffer DeviceBuffer::input(BackendHandle& backend, opcert_device device, const std::vector<std::byte>& bytes) {
  DeviceBuffer b(backend, device, bytes.size(), false);
  if (!bytes.empty()) backend.copy(device, OPCERT_COPY_HOST_TO_DEVICE, b.base_, bytes.data(), bytes.size());
  return b;
}

DeviceBuffer DeviceBuffer::guarded_output(BackendHandle& backend, opcert_device device, std::size_t bytes) {
  DeviceBuffer b(backend, device, bytes, true);
  std::vector<std::byte> image(bytes + 2 * kGuardBytes, kUnwritten);
  std::fill_n(image.begin(), kGuardBytes, kCanary);
  std::fill_n(image.end() - kGuardBytes, kGuardBytes, kCanary);
  backend.copy(device, OPCERT_COPY_HOST_TO_DEVICE, b.base_, image.data(), image.size());
  return b;
}

void* DeviceBuffer::data() const { return static_cast<char*>(base_) + (guarded_ ? kGuardBytes : 0); }

std::string DeviceBuffer::read_back(std::vector<std::byte>& tensor_bytes) {
  tensor_bytes.resize(tensor_bytes_);
  if (!guarded_) {
    if (tensor_bytes_ != 0) backend_->copy(device_, OPCERT_COPY_DEVICE_TO_HOST, tensor_bytes.data(), base_, tensor_bytes_);
    return "";
  }
  std::vector<std::byte> image(tensor_bytes_ + 2 * kGuardBytes);
  backend_->copy(device_, OPCERT_COPY_DEVICE_TO_HOST, image.data(), base_, image.size());
  std::copy_n(image.begin() + kGuardBytes, tensor_bytes_, tensor_bytes.begin());
  const auto changed = [&](std::size_t from, std::size_t to) {
    std::size_t count = 0, first = to;
    for (std::size_t i = from; i < to; ++i)
      if (image[i] != kCanary) {
        ++count;
        first = std::min(first, i);
      }
    return std::pair{count, first};
  };
  if (auto [count, first] = changed(0, kGuardBytes); count > 0)
    return fmt::format("{} byte(s) written before the start (first at byte {})", count,
                       static_cast<long long>(first) - static_cast<long long>(kGuardBytes));
  if (auto [count, first] = changed(kGuardBytes + tensor_bytes_, image.size()); count > 0)
    return fmt::format("{} byte(s) written past the end (first at byte +{} after it)", count,
                       first - kGuardBytes - tensor_bytes_);
  return "";
}

}  // namespace opcert
