// softmax: at::softmax over the last dimension in the dtype (torch accumulates fp16/bf16 in
// fp32 internally); NaN rows come out as torch makes them. Operands: the SDK's parse_softmax.
#include <opcert/sdk/checked_implementation.h>
#include <opcert/sdk/ops/softmax.h>

#include "tensor_bridge.h"
#include "torch_implementations.h"

namespace opcert::torch_backend {
namespace {

void run(const sdk::SoftmaxOperands& s) {
  const at::Tensor x = wrap(*s.x);
  write_output(*s.y, at::softmax(to_compute_dtype(x), -1).to(x.scalar_type()));
}

std::vector<sdk::Implementation> softmax_implementations() {
  return {sdk::checked_implementation(
      {"torch.softmax.native", "softmax", "at::softmax(x, -1) in the dtype", operand_device_type()}, sdk::parse_softmax, run,
      nullptr, [](const sdk::SoftmaxOperands&) { return std::string("torch.softmax(x, dim=-1)"); })};
}

}  // namespace

OPCERT_REGISTER_IMPLEMENTATIONS(TorchImplementations, "softmax", softmax_implementations)

}  // namespace opcert::torch_backend
