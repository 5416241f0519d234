#include "model/tensor_spec.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "model/dtype.h"

namespace opcert {

int64_t TensorSpec::numel() const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

std::size_t TensorSpec::bytes() const { return static_cast<std::size_t>(numel()) * dtype_bytes(dtype); }

std::string shape_text(const std::vector<int64_t>& shape) { return fmt::format("[{}]", fmt::join(shape, ", ")); }

}  // namespace opcert
