// softmax over the last dimension (docs/OPS.md#softmax). A row holding a NaN or +inf, or made
// only of -inf, is NaN throughout, as torch gives. magnitude = the value; condition = max |x| over
// the row's finite inputs + log N.
#include <cmath>
#include <limits>
#include <stdexcept>

#include "ops/softmax/softmax.h"
#include "reference/reference_support.h"

namespace opcert::ops::softmax {
namespace {

using namespace reference_detail;

RowBlock softmax_rows(const at::Tensor& x) {
  const int64_t n = x.size(1);
  const at::Tensor max = x.amax(1, true);
  const at::Tensor e = at::exp(x - max);
  at::Tensor y = e / e.sum(1, true);
  const at::Tensor undefined_row =
      (at::isnan(x) | (x == std::numeric_limits<double>::infinity())).any(1, true) |
      (x == -std::numeric_limits<double>::infinity()).all(1, true);
  y = y.masked_fill(undefined_row, std::numeric_limits<double>::quiet_NaN());
  // fp32 exp's error grows with its argument x - max, bounded by max |x| over the finite inputs.
  const at::Tensor finite_abs = x.abs().masked_fill(at::logical_not(at::isfinite(x)), 0.0);
  const at::Tensor condition = (finite_abs.amax(1, true) + std::log(static_cast<double>(n))).expand_as(x);
  return {y, y.abs(), condition};
}

std::vector<ReferenceOutput> reference(const Case& c, std::span<const HostTensor> inputs, const SamplePlan& plan) {
  const HostTensor& x = require_input(inputs, c.op, names::kX);
  if (x.spec.shape.empty()) throw std::invalid_argument("softmax: 'x' must have rank 1 or more");
  const TensorSpec& y_spec = require_output(c, names::kY);
  if (y_spec.shape != x.spec.shape) throw std::invalid_argument("softmax: output 'y' must have the shape of 'x'");
  const int64_t n = x.spec.shape.back();
  const int64_t numel = x.spec.numel();
  const int64_t row_count = n == 0 ? 0 : numel / n;
  const auto* sample = sampled(plan, names::kY, numel);
  const std::vector<int64_t> rows = rows_needed(sample, std::max<int64_t>(n, 1), row_count);
  RowCollector y(rows, n, true, sample);
  for_row_chunks(rows, n, [&](int64_t first, std::span<const int64_t> chunk) {
    y.put_range(first, softmax_rows(gather_rows(x, n, chunk)));
  });
  return {y.emit(names::kY, numel)};
}

}  // namespace

OPCERT_REGISTER_REFERENCE(names::kOp, reference)

}  // namespace opcert::ops::softmax
