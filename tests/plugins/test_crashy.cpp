// Test plugin "crashy": a softmax that misbehaves on purpose, so the runner's worker isolation can
// be tested with a real `opcert run`. Implementation "crashy.softmax.segv" (fp32 only):
//   first dimension of x == 3: raises SIGSEGV (the worker dies mid-case -> CRASHED);
//   first dimension of x == 5: sleeps forever (the per-case timeout fires -> TIMEOUT);
//   otherwise: a correct softmax over the last dimension (-> PASSED).
#include <opcert/sdk/backend.h>

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <csignal>

namespace {

using opcert::sdk::OpCall;
using opcert::sdk::Support;

Support query_softmax(const OpCall& call) {
  const auto x = call.find_input("x");
  const auto y = call.find_output("y");
  if (!x || !y) return Support::no("softmax needs input 'x' and output 'y'");
  if (x->dtype() != OPCERT_DTYPE_F32 || y->dtype() != OPCERT_DTYPE_F32)
    return Support::no("crashy softmax supports only fp32");
  if (x->ndim() < 1 || !std::equal(x->shape().begin(), x->shape().end(), y->shape().begin(), y->shape().end()))
    return Support::no("'x' and 'y' must have the same shape, of at least one dimension");
  if (!x->contiguous() || !y->contiguous()) return Support::no("only contiguous tensors");
  return Support::yes();
}

void run_softmax(const OpCall& call) {
  const auto x = call.input("x");
  const auto y = call.output("y");
  if (x.dim(0) == 3) std::raise(SIGSEGV);
  if (x.dim(0) == 5)
    for (;;) sleep(1);  // a hang the runner must time out
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

class Crashy : public opcert::sdk::Backend {
 public:
  Crashy() {
    add({"crashy.softmax.segv", "softmax", "fp32 softmax that crashes when dim 0 is 3 and hangs when it is 5",
         query_softmax, run_softmax});
  }

  opcert::sdk::BackendInfo info() const override {
    return {"crashy", "0.0.1", "opcert tests", "crashes and hangs on purpose (worker isolation tests)"};
  }
};

}  // namespace

OPCERT_SDK_EXPORT_PLUGIN(Crashy)
