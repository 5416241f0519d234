// The fp32 softmax (last dimension of input "x" into output "y") that the test plugins which
// need a correct op share. Header-only, so each plugin stays one self-contained library.
#pragma once

#include <opcert/sdk/backend.h>

#include <algorithm>
#include <cmath>
#include <string>

namespace opcert::test_plugin {

/// Whether the call is an fp32 softmax this code handles; `who` names the plugin in the reason.
inline sdk::Support query_fp32_softmax(const sdk::OpCall& call, const std::string& who) {
  const auto x = call.find_input("x");
  const auto y = call.find_output("y");
  if (!x || !y) return sdk::Support::no("softmax needs input 'x' and output 'y'");
  if (x->dtype() != OPCERT_DTYPE_F32 || y->dtype() != OPCERT_DTYPE_F32)
    return sdk::Support::no(who + " softmax supports only fp32");
  if (x->ndim() < 1 || !std::equal(x->shape().begin(), x->shape().end(), y->shape().begin(), y->shape().end()))
    return sdk::Support::no("'x' and 'y' must have the same shape, of at least one dimension");
  if (!x->contiguous() || !y->contiguous()) return sdk::Support::no("only contiguous tensors");
  return sdk::Support::yes();
}

/// Softmax over the last dimension, summed in double.
inline void run_fp32_softmax(const sdk::OpCall& call) {
  const auto x = call.input("x");
  const auto y = call.output("y");
  const int64_t cols = x.dim(-1);
  const int64_t rows = cols == 0 ? 0 : x.numel() / cols;
  const float* in = x.data<const float>();
  float* out = y.data<float>();
  for (int64_t r = 0; r < rows; ++r) {
    const float* row = in + r * cols;
    const float max = *std::max_element(row, row + cols);
    double sum = 0;
    for (int64_t c = 0; c < cols; ++c) sum += std::exp(static_cast<double>(row[c]) - max);
    for (int64_t c = 0; c < cols; ++c)
      out[r * cols + c] = static_cast<float>(std::exp(static_cast<double>(row[c]) - max) / sum);
  }
}

}  // namespace opcert::test_plugin
