#include "softmax.h"

#include <opcert/sdk/checked_implementation.h>
#include <opcert/sdk/number_codecs.h>
#include <opcert/sdk/ops/softmax.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace example_npu {
namespace {

namespace sdk = opcert::sdk;

// One row of n > 0 elements, in fp32. The row's max is subtracted before exp, so no term
// overflows (the largest is exp(0) = 1) and the sum is at least 1 whenever the max is finite. A
// NaN or +inf in the row, or a row of only -inf, gives NaN everywhere, as the torch reference does.
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
  if (s.dtype != OPCERT_DTYPE_F32 && s.dtype != OPCERT_DTYPE_F16 && s.dtype != OPCERT_DTYPE_BF16)
    return sdk::Support::no("fp32, fp16 and bf16 only (x is " + sdk::dtype_name(s.dtype) + ")");
  for (const sdk::Tensor& t : {*s.x, *s.y})
    if (t.device().index != 0)
      return sdk::Support::no("tensor '" + std::string(t.name()) + "' is not on the example NPU (device other:0)");
  return sdk::Support::yes();
}

// y = softmax(x) along the last dimension, for operands that parsed and passed the limits. A
// row is decoded into fp32, computed, and each element rounded once into y's dtype by the SDK's
// codecs (opcert/sdk/number_codecs.h: round to nearest even, docs/OPS.md to the bit).
void compute(const sdk::SoftmaxOperands& s) {
  const void* in = s.x->data<const void>();
  void* out = s.y->data<void>();
  std::vector<float> row(static_cast<std::size_t>(s.n));
  for (int64_t r = 0; r < s.rows; ++r) {
    for (int64_t i = 0; i < s.n; ++i) row[static_cast<std::size_t>(i)] = sdk::load_as_f32(s.dtype, in, r * s.n + i);
    softmax_row(row.data(), row.data(), s.n);
    for (int64_t i = 0; i < s.n; ++i) sdk::store_f32_as(s.dtype, out, r * s.n + i, row[static_cast<std::size_t>(i)]);
  }
}

}  // namespace

sdk::Implementation softmax_implementation() {
  // checked_implementation gives the query and the run every implementation should have: the
  // query parses the call (no data needed) and declines a contract violation with the parser's
  // reason, then asks `limits`; the run parses again with data required, throws the first
  // problem as INVALID_ARGUMENT, and calls `compute`.
  return sdk::checked_implementation({"example_npu.softmax.reference", "softmax",
                                      "softmax over the last dimension, fp32/fp16/bf16, max-subtracted, fp32 math",
                                      OPCERT_DEVICE_OTHER},
                                     sdk::parse_softmax, compute, limits);
}

}  // namespace example_npu
