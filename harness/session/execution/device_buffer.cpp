#include "session/execution/device_buffer.h"

#include <fmt/format.h>

#include <algorithm>

#include "model/checked_size.h"

namespace opcert {
namespace {

constexpr std::byte kCanary{0xA5};
constexpr std::byte kUnwritten{0xFF};
constexpr uint64_t kAlignment = 256;
constexpr std::size_t kFillBlockBytes = std::size_t{4} << 20;  // the 0xFF fill's host block

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
  // The guards and the 0xFF fill go in pieces from one small host block: an image of the whole
  // buffer on the host would cost a big output its size again in fresh pages to fill and copy.
  const std::vector<std::byte> canary(kGuardBytes, kCanary);
  auto* base = static_cast<std::byte*>(b.base_);
  backend.copy(device, OPCERT_COPY_HOST_TO_DEVICE, base, canary.data(), kGuardBytes);
  backend.copy(device, OPCERT_COPY_HOST_TO_DEVICE, base + kGuardBytes + bytes, canary.data(), kGuardBytes);
  const std::vector<std::byte> unwritten(std::min(bytes, kFillBlockBytes), kUnwritten);
  for (std::size_t at = 0; at < bytes; at += unwritten.size())
    backend.copy(device, OPCERT_COPY_HOST_TO_DEVICE, base + kGuardBytes + at, unwritten.data(),
                 std::min(unwritten.size(), bytes - at));
  return b;
}

void* DeviceBuffer::data() const { return static_cast<char*>(base_) + (guarded_ ? kGuardBytes : 0); }

std::string DeviceBuffer::read_back(std::vector<std::byte>& tensor_bytes) {
  tensor_bytes.resize(tensor_bytes_);
  auto* base = static_cast<std::byte*>(base_);
  const std::size_t front = guarded_ ? kGuardBytes : 0;
  if (tensor_bytes_ != 0)
    backend_->copy(device_, OPCERT_COPY_DEVICE_TO_HOST, tensor_bytes.data(), base + front, tensor_bytes_);
  if (!guarded_) return "";
  std::vector<std::byte> before(kGuardBytes), after(kGuardBytes);
  backend_->copy(device_, OPCERT_COPY_DEVICE_TO_HOST, before.data(), base, kGuardBytes);
  backend_->copy(device_, OPCERT_COPY_DEVICE_TO_HOST, after.data(), base + kGuardBytes + tensor_bytes_, kGuardBytes);
  const auto changed = [](const std::vector<std::byte>& guard) {
    std::size_t count = 0, first = guard.size();
    for (std::size_t i = 0; i < guard.size(); ++i)
      if (guard[i] != kCanary) {
        ++count;
        first = std::min(first, i);
      }
    return std::pair{count, first};
  };
  if (auto [count, first] = changed(before); count > 0)
    return fmt::format("{} byte(s) written before the start (first at byte {})", count,
                       static_cast<long long>(first) - static_cast<long long>(kGuardBytes));
  if (auto [count, first] = changed(after); count > 0)
    return fmt::format("{} byte(s) written past the end (first at byte +{} after it)", count, first);
  return "";
}

}  // namespace opcert
