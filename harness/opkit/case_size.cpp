#include "opkit/case_size.h"

#include <fmt/format.h>

#include <cmath>

#include "model/dtype.h"

namespace opcert::opkit {

int64_t listed_count(const TensorSpec& t) {
  require_operand_fits(t.name, t.shape, t.dtype);
  const int64_t n = t.numel();
  if (n > kMaxListedValues)
    throw SizeError(t.name, t.shape,
                    fmt::format("operand '{}' {} would list {} values when the suite loads, more than the {} a case may list "
                                "(docs/SUITES.md, \"Sizes\")",
                                t.name, shape_text(t.shape), n, kMaxListedValues));
  return n;
}

void require_case_fits(const Case& c) {
  uint64_t total = 0;
  const TensorSpec* largest = nullptr;
  for (const auto* operands : {&c.inputs, &c.outputs})
    for (const TensorSpec& t : *operands) {
      require_operand_fits(t.name, t.shape, t.dtype);
      const uint64_t bytes = t.bytes();  // each at most kMaxCaseBytes, so the sum of a few cannot wrap
      if (largest == nullptr || bytes > largest->bytes()) largest = &t;
      total = checked_add(total, bytes).value_or(UINT64_MAX);
    }
  if (total <= kMaxCaseBytes) return;
  throw SizeError(largest->name, largest->shape,
                  fmt::format("its operands hold {} bytes together (the largest, '{}' {}, {}), more than the {} bytes a "
                              "case may hold (docs/SUITES.md, \"Sizes\")",
                              power_of_two_text(std::log2(static_cast<double>(total))), largest->name,
                              shape_text(largest->shape), power_of_two_text(std::log2(static_cast<double>(largest->bytes()))),
                              power_of_two_text(std::log2(static_cast<double>(kMaxCaseBytes)))));
}

}  // namespace opcert::opkit
