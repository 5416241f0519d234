// The fp32 softmax (last dimension of input "x" into output "y") that the test plugins which
// need a correct op share, read with the SDK's softmax parser. Header-only, so each plugin stays
// one self-contained library.
#pragma once

#include <opcert/sdk/backend.h>
#include <opcert/sdk/ops/softmax.h>

#include <algorithm>
#include <cmath>
#include <string>

namespace opcert::test_plugin {

/// Whether the call is an fp32 softmax this code handles: the contract's (the parser's reason
/// when not), then fp32 only; `who` names the plugin in that reason.
inline sdk::Support query_fp32_softmax(const sdk::OpCall& call, const std::string& who) {
  sdk::CallCheck check(call, false);
  const sdk::SoftmaxOperands s = sdk::parse_softmax(call, check);
  if (!check.ok()) return check.support();
  if (s.dtype != OPCERT_DTYPE_F32) return sdk::Support::no(who + " softmax supports only fp32");
  return sdk::Support::yes();
}

/// Softmax over the last dimension, summed in double.
inline void run_fp32_softmax(const sdk::OpCall& call) {
  sdk::CallCheck check(call, true);
  const sdk::SoftmaxOperands s = sdk::parse_softmax(call, check);
  check.throw_if_failed();
  const int64_t cols = s.n;
  const float* in = s.x->data<const float>();
  float* out = s.y->data<float>();
  for (int64_t r = 0; r < s.rows; ++r) {
    const float* row = in + r * cols;
    const float max = *std::max_element(row, row + cols);
    double sum = 0;
    for (int64_t c = 0; c < cols; ++c) sum += std::exp(static_cast<double>(row[c]) - max);
    for (int64_t c = 0; c < cols; ++c)
      out[r * cols + c] = static_cast<float>(std::exp(static_cast<double>(row[c]) - max) / sum);
  }
}

}  // namespace opcert::test_plugin
