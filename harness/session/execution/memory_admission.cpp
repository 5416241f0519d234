#include "session/execution/memory_admission.h"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "model/checked_size.h"
#include "session/execution/device_buffer.h"
#include "util/byte_size.h"

namespace opcert {

namespace {

uint64_t sum(uint64_t a, uint64_t b) {
  if (auto s = checked_add(a, b)) return *s;
  throw SizeError("", {}, "the case's memory footprint does not fit 64 bits");
}

uint64_t times(uint64_t a, uint64_t b) {
  if (auto p = checked_mul(a, b)) return *p;
  throw SizeError("", {}, "the case's memory footprint does not fit 64 bits");
}

}  // namespace

uint64_t Footprint::device() const { return sum(operands, outputs); }

uint64_t Footprint::host(bool device_is_host) const {
  return sum(sum(sum(operands, outputs), reference), device_is_host ? device() : 0);
}

Footprint case_footprint(const Case& c) {
  Footprint f;
  uint64_t elements = 0;
  for (const TensorSpec& t : c.inputs) {
    f.operands = sum(f.operands, t.bytes());
    elements = sum(elements, static_cast<uint64_t>(t.numel()));
  }
  for (const TensorSpec& t : c.outputs) {
    f.outputs = sum(f.outputs, sum(t.bytes(), 2 * DeviceBuffer::kGuardBytes));
    // A sampled check computes its sample of the output (check/sample_plan.h), not all of it.
    const int64_t n = t.numel();
    elements = sum(elements, static_cast<uint64_t>(c.sample_elements > 0 && n > c.sample_elements ? c.sample_elements : n));
  }
  f.reference = times(elements, sizeof(double));
  return f;
}

std::optional<uint64_t> host_available_bytes() {
  std::ifstream meminfo("/proc/meminfo");
  std::string line;
  while (std::getline(meminfo, line)) {
    std::istringstream fields(line);
    std::string key;
    uint64_t kib = 0;
    if (fields >> key >> kib && key == "MemAvailable:") return kib * 1024;
  }
  return std::nullopt;
}

uint64_t host_share_bytes(int local_ranks) {
  return host_available_bytes().value_or(0) / static_cast<uint64_t>(std::max(1, local_ranks));
}

bool memory_is_host(const DeviceDescription& device) { return device.device.type == OPCERT_DEVICE_CPU; }

MemoryLimits memory_limits(const DeviceDescription& device, uint64_t max_memory) {
  return {memory_is_host(device), device.memory_bytes, host_available_bytes(), max_memory};
}

std::string admission_refusal(const Footprint& f, const MemoryLimits& limits) {
  const auto size = [](uint64_t bytes) { return format_byte_size(static_cast<double>(bytes)); };
  const std::string parts = fmt::format("operands {}, outputs {}, fp64 reference {}", size(f.operands), size(f.outputs),
                                        size(f.reference));
  const uint64_t host = f.host(limits.device_is_host);
  if (limits.max_memory > 0 && host > limits.max_memory)
    return fmt::format("needs {} of host memory ({}), more than --max-memory {}", size(host), parts, size(limits.max_memory));
  if (limits.host_available && host > *limits.host_available)
    return fmt::format("needs {} of host memory ({}), more than the {} this host has available (MemAvailable); a larger "
                       "host runs it",
                       size(host), parts, size(*limits.host_available));
  if (limits.device_is_host) return "";
  if (limits.max_memory > 0 && f.device() > limits.max_memory)
    return fmt::format("needs {} of device memory (operands {}, outputs {}), more than --max-memory {}", size(f.device()),
                       size(f.operands), size(f.outputs), size(limits.max_memory));
  if (limits.device_total > 0 && f.device() > limits.device_total)
    return fmt::format("needs {} of device memory (operands {}, outputs {}), more than the device's {}", size(f.device()),
                       size(f.operands), size(f.outputs), size(limits.device_total));
  return "";
}

}  // namespace opcert
