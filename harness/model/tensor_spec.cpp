#include "model/tensor_spec.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <limits>

#include "model/checked_size.h"
#include "model/dtype.h"

namespace opcert {

// Checked: a shape whose count passes int64 is an error, never a wrapped count. Cases from a suite
// never get here with one (the loader refuses them, docs/SUITES.md "Sizes").
int64_t TensorSpec::numel() const {
  const auto n = element_count(shape);
  if (!n || *n > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
    throw SizeError(name, shape, fmt::format("operand '{}' {}: its element count does not fit 64 bits", name, shape_text(shape)));
  return static_cast<int64_t>(*n);
}

std::size_t TensorSpec::bytes() const {
  const auto n = checked_mul(static_cast<uint64_t>(numel()), dtype_bytes(dtype));
  if (!n) throw SizeError(name, shape, fmt::format("operand '{}' {}: its byte size does not fit 64 bits", name, shape_text(shape)));
  return static_cast<std::size_t>(*n);
}

std::string shape_text(const std::vector<int64_t>& shape) { return fmt::format("[{}]", fmt::join(shape, ", ")); }

}  // namespace opcert
