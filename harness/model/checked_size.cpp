#include "model/checked_size.h"

#include <fmt/format.h>

#include <cmath>
#include <limits>

#include "model/dtype.h"
#include "model/tensor_spec.h"

namespace opcert {

std::optional<uint64_t> checked_mul(uint64_t a, uint64_t b) {
  uint64_t out = 0;
  if (__builtin_mul_overflow(a, b, &out)) return std::nullopt;
  return out;
}

std::optional<uint64_t> checked_add(uint64_t a, uint64_t b) {
  uint64_t out = 0;
  if (__builtin_add_overflow(a, b, &out)) return std::nullopt;
  return out;
}

namespace {

// The product of the dimensions, each 0 counted as `zero_as`.
std::optional<uint64_t> product(std::span<const int64_t> shape, uint64_t zero_as) {
  for (int64_t d : shape)
    if (d < 0) return std::nullopt;
  uint64_t n = 1;
  bool overflowed = false;
  for (int64_t d : shape) {
    const uint64_t factor = d == 0 ? zero_as : static_cast<uint64_t>(d);
    if (factor == 0) return uint64_t{0};  // exact: an empty tensor whatever its other dimensions
    if (auto next = checked_mul(n, factor)) n = *next;
    else overflowed = true;               // may still be saved by a later 0
  }
  if (overflowed) return std::nullopt;
  return n;
}

}  // namespace

std::optional<uint64_t> element_count(std::span<const int64_t> shape) { return product(shape, 0); }

std::optional<uint64_t> shape_extent(std::span<const int64_t> shape) { return product(shape, 1); }

double size_log2(std::span<const int64_t> shape, double scale) {
  double bits = std::log2(scale);
  for (int64_t d : shape) bits += d > 0 ? std::log2(static_cast<double>(d)) : 0.0;
  return bits;
}

std::string power_of_two_text(double log2_size) {
  if (log2_size == std::floor(log2_size)) return fmt::format("2^{}", static_cast<int64_t>(log2_size));
  return fmt::format("2^{:.1f}", log2_size);
}

void require_operand_fits(const std::string& name, std::span<const int64_t> shape, opcert_dtype dtype) {
  const std::vector<int64_t> dims(shape.begin(), shape.end());
  for (int64_t d : shape)
    if (d < 0) throw SizeError(name, dims, fmt::format("operand '{}' has a negative dimension: {}", name, shape_text(dims)));
  const auto extent = shape_extent(shape);
  const auto bytes = extent ? checked_mul(*extent, dtype_bytes(dtype)) : std::nullopt;
  if (bytes && *bytes <= kMaxCaseBytes) return;
  const auto count = element_count(shape);
  const std::string bytes_text = power_of_two_text(size_log2(shape, dtype_bytes(dtype)));
  const std::string size =
      count && *count == 0 ? fmt::format("holds no element, but its strides span {} bytes", bytes_text)
                           : fmt::format("holds {} elements of {} ({} bytes)", power_of_two_text(size_log2(shape)),
                                         dtype_name(dtype), bytes_text);
  throw SizeError(name, dims,
                  fmt::format("operand '{}' {} {}, more than the {} bytes a case may hold (docs/SUITES.md, \"Sizes\")", name,
                              shape_text(dims), size, power_of_two_text(std::log2(static_cast<double>(kMaxCaseBytes)))));
}

}  // namespace opcert
