#include "bench/collective_sweep.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>

#include "model/dtype.h"
#include "model/input_error.h"
#include "reports/number_format.h"

namespace opcert {

uint64_t parse_byte_size(std::string_view text, std::string_view flag) {
  const auto bad = [&] {
    return InputError(fmt::format("{} '{}' is not a size in bytes: write a whole number with an optional K, M or G "
                                  "(powers of 1024), e.g. 4096, 1K, 256M",
                                  flag, text));
  };
  std::size_t digits = 0;
  while (digits < text.size() && std::isdigit(static_cast<unsigned char>(text[digits]))) ++digits;
  if (digits == 0 || digits > 15) throw bad();
  uint64_t value = std::stoull(std::string(text.substr(0, digits)));
  std::string unit(text.substr(digits));
  for (char& ch : unit) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  if (unit.ends_with("IB")) unit.resize(unit.size() - 2);
  else if (unit.size() > 1 && unit.ends_with("B")) unit.pop_back();
  int shift = 0;
  if (unit == "K") shift = 10;
  else if (unit == "M") shift = 20;
  else if (unit == "G") shift = 30;
  else if (!unit.empty() && unit != "B") throw bad();
  if (value > (std::numeric_limits<uint64_t>::max() >> 34)) throw bad();
  return value << shift;
}

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
