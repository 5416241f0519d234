#include "softmax.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>

namespace example_npu {
namespace {

using opcert::sdk::OpCall;
using opcert::sdk::Support;
using opcert::sdk::Tensor;

std::string shape_text(const Tensor& t) {
  std::string s = "[";
  for (int32_t i = 0; i < t.ndim(); ++i) s += (i ? ", " : "") + std::to_string(t.dim(i));
  return s + "]";
}

const char* dtype_name(int32_t dtype) {
  switch (dtype) {
    case OPCERT_DTYPE_F64: return "fp64";
    case OPCERT_DTYPE_F32: return "fp32";
    case OPCERT_DTYPE_F16: return "fp16";
    case OPCERT_DTYPE_BF16: return "bf16";
    case OPCERT_DTYPE_F8_E4M3FN: return "fp8_e4m3fn";
    case OPCERT_DTYPE_F8_E5M2: return "fp8_e5m2";
    case OPCERT_DTYPE_I8: return "int8";
    case OPCERT_DTYPE_I32: return "int32";
    default: return "unknown";
  }
}

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

}  // namespace

Support softmax_query(const OpCall& call) {
  const auto x = call.find_input("x");
  const auto y = call.find_output("y");
  if (!x) return Support::no("missing input 'x'");
  if (!y) return Support::no("missing output 'y'");
  if (x->dtype() != OPCERT_DTYPE_F32 || y->dtype() != OPCERT_DTYPE_F32)
    return Support::no(std::string("fp32 only (x is ") + dtype_name(x->dtype()) + ", y is " + dtype_name(y->dtype()) +
                       ")");
  if (x->ndim() < 1) return Support::no("x must have at least one dimension");
  if (x->ndim() != y->ndim() || !std::equal(x->shape().begin(), x->shape().end(), y->shape().begin()))
    return Support::no("y has shape " + shape_text(*y) + ", x has shape " + shape_text(*x));
  if (!x->contiguous() || !y->contiguous()) return Support::no("non-contiguous tensors are not supported");
  for (const Tensor& t : {*x, *y})
    if (t.device().type != OPCERT_DEVICE_OTHER || t.device().index != 0)
      return Support::no("tensor '" + std::string(t.name()) + "' is not on the example NPU (device other:0)");
  if (call.has("dim")) {
    const int64_t dim = call.get_int("dim", -1);
    if (dim != -1 && dim != x->ndim() - 1) return Support::no("softmax over the last dimension only");
  }
  return Support::yes();
}

void softmax_run(const OpCall& call) {
  const Tensor x = call.input("x");
  const Tensor y = call.output("y");
  const int64_t n = x.dim(-1);
  if (n == 0 || x.numel() == 0) return;
  const int64_t rows = x.numel() / n;
  const float* in = x.data<float>();
  float* out = y.data<float>();
  for (int64_t r = 0; r < rows; ++r) softmax_row(in + r * n, out + r * n, n);
}

}  // namespace example_npu
