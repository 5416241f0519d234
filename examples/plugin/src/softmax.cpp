#include "softmax.h"

#include <opcert/sdk/checked_implementation.h>
#include <opcert/sdk/ops/softmax.h>

#include <cmath>
#include <cstdint>
#include <string>

namespace example_npu {
namespace {

namespace sdk = opcert::sdk;

// One row of n > 0 elements. The row's max is subtracted before exp, so no term overflows
// (the largest is exp(0) = 1) and the sum is at least 1 whenever the max is finite. A NaN or
// +inf in the row, or a row of only -inf, gives NaN everywhere, as the torch reference does.
void softmax_row(const float* x, float* y, int64_t n) {
  float max = -INFINITY;
  for (int64_t i = 0; i < n; ++i) max = std::fmax(max, x[i]);
  float sum = 0.0f;
  for (int64_t i = 0; i < n; ++i) {
    y[i] = std::exp(x[i] - max);  // reads x[i] before writing y[i]: x and y may be the same buffer
    sum += y[i];
  }
  for (int64_t i = 0; i < n; ++i) y[i] /= sum;
}

// What this kernel handles of the calls the contract allows (the parser has checked those).
sdk::Support limits(const sdk::SoftmaxOperands& s) {
  if (s.dtype != OPCERT_DTYPE_F32) return sdk::Support::no("fp32 only (x is " + sdk::dtype_name(s.dtype) + ")");
  for (const sdk::Tensor& t : {*s.x, *s.y})
    if (t.device().index != 0)
      return sdk::Support::no("tensor '" + std::string(t.name()) + "' is not on the example NPU (device other:0)");
  return sdk::Support::yes();
}

// y = softmax(x) along the last dimension, for operands that parsed and passed the limits.
void compute(const sdk::SoftmaxOperands& s) {
  const float* in = s.x->data<const float>();
  float* out = s.y->data<float>();
  for (int64_t r = 0; r < s.rows; ++r) softmax_row(in + r * s.n, out + r * s.n, s.n);
}

}  // namespace

sdk::Implementation softmax_implementation() {
  // checked_implementation gives the query and the run every implementation should have: the
  // query parses the call (no data needed) and declines a contract violation with the parser's
  // reason, then asks `limits`; the run parses again with data required, throws the first
  // problem as INVALID_ARGUMENT, and calls `compute`.
  return sdk::checked_implementation({"example_npu.softmax.reference", "softmax",
                                      "softmax over the last dimension, fp32, max-subtracted, fp32 math",
                                      OPCERT_DEVICE_OTHER},
                                     sdk::parse_softmax, compute, limits);
}

}  // namespace example_npu
