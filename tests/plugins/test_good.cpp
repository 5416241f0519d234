// Test plugin "test_good" (version 1.2.3): one real implementation, an fp32 softmax over the last
// dimension of input "x" into output "y". Built twice: as test_good, and with TEST_GOOD_TWIN as a
// second library that claims the same backend name.
#include <opcert/sdk/backend.h>

#include <algorithm>
#include <cmath>

namespace {

using opcert::sdk::OpCall;
using opcert::sdk::Support;

Support query_softmax(const OpCall& call) {
  const auto x = call.find_input("x");
  const auto y = call.find_output("y");
  if (!x || !y) return Support::no("softmax needs input 'x' and output 'y'");
  if (x->dtype() != OPCERT_DTYPE_F32 || y->dtype() != OPCERT_DTYPE_F32)
    return Support::no("test_good softmax supports only fp32");
  if (x->ndim() < 1 || !std::equal(x->shape().begin(), x->shape().end(), y->shape().begin(), y->shape().end()))
    return Support::no("'x' and 'y' must have the same shape, of at least one dimension");
  if (!x->contiguous() || !y->contiguous()) return Support::no("only contiguous tensors");
  return Support::yes();
}

void run_softmax(const OpCall& call) {
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

class TestGood : public opcert::sdk::Backend {
 public:
  TestGood() { add({"test_good.softmax.reference", "softmax", "fp32 softmax, last dim", query_softmax, run_softmax}); }

  opcert::sdk::BackendInfo info() const override {
#ifdef TEST_GOOD_TWIN
    return {"test_good", "9.9.9", "opcert tests", "a second library claiming the name test_good"};
#else
    return {"test_good", "1.2.3", "opcert tests", "a well-behaved plugin"};
#endif
  }
};

}  // namespace

OPCERT_SDK_EXPORT_PLUGIN(TestGood)
