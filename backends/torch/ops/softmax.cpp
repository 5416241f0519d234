// softmax: at::softmax over the last dimension in the dtype (torch accumulates fp16/bf16 in
// fp32 internally); NaN rows come out as torch makes them.
#include "ops/query_checks.h"
#include "ops/torch_ops.h"
#include "tensor_bridge.h"

namespace opcert::torch_backend {
namespace {

using namespace checks;

sdk::Support query(const sdk::OpCall& call) {
  const sdk::Tensor x = call.input("x"), y = call.output("y");
  if (x.ndim() < 1) return sdk::Support::no("softmax needs rank >= 1");
  return all_of({dtype_in(x, {OPCERT_DTYPE_F32, OPCERT_DTYPE_F16, OPCERT_DTYPE_BF16}), same_dtype(x, y),
                 shape_is(y, std::vector<int64_t>(x.shape().begin(), x.shape().end()))});
}

void run(const sdk::OpCall& call) {
  const at::Tensor x = wrap(call.input("x"));
  write_output(call.output("y"), at::softmax(to_compute_dtype(x), -1).to(x.scalar_type()));
}

}  // namespace

std::vector<sdk::Implementation> softmax_implementations() {
  return {{"torch.softmax.native", "softmax", "at::softmax(x, -1) in the dtype", query, run}};
}

}  // namespace opcert::torch_backend
