#include "bench/collective_sweep.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "model/dtype.h"
#include "model/input_error.h"
#include "util/byte_size.h"

namespace opcert {

void validate_sweep(const SweepSettings& s) {
  if (s.min_bytes == 0) throw InputError("--min-bytes must be at least 1 byte");
  if (s.min_bytes > s.max_bytes)
    throw InputError(fmt::format("--min-bytes ({}) is larger than --max-bytes ({}): give a range from small to large",
                                 format_byte_size(static_cast<double>(s.min_bytes)),
                                 format_byte_size(static_cast<double>(s.max_bytes))));
  if (!(s.step_factor > 1.0) || !std::isfinite(s.step_factor))
    throw InputError(fmt::format("--step-factor {} must be a number above 1 (2 doubles the size at each step)",
                                 s.step_factor));
}

std::vector<uint64_t> sweep_sizes(const SweepSettings& s) {
  validate_sweep(s);
  std::vector<uint64_t> sizes;
  for (double size = static_cast<double>(s.min_bytes); size <= static_cast<double>(s.max_bytes); size *= s.step_factor) {
    const auto bytes = static_cast<uint64_t>(std::llround(size));
    if (sizes.empty() || bytes > sizes.back()) sizes.push_back(bytes);
  }
  if (sizes.back() < s.max_bytes) sizes.push_back(s.max_bytes);
  return sizes;
}

int64_t count_for_size(const CollectiveSpec& spec, uint64_t bytes, int ranks) {
  const uint64_t per_unit = dtype_bytes(spec.dtype) * static_cast<uint64_t>(spec.size_units(ranks));
  return std::max<int64_t>(1, static_cast<int64_t>(bytes / per_unit));
}

uint64_t size_of_count(const CollectiveSpec& spec, int64_t count, int ranks) {
  return static_cast<uint64_t>(count) * dtype_bytes(spec.dtype) * static_cast<uint64_t>(spec.size_units(ranks));
}

}  // namespace opcert
