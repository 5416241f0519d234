// gemm through at::linear in the operands' dtype: torch accumulates fp16/bf16 products in fp32
// and rounds once, the contract's c = round(a·bᵀ + bias). Operands: the SDK's parse_gemm.
#include <opcert/sdk/checked_implementation.h>
#include <opcert/sdk/ops/gemm.h>

#include "tensor_bridge.h"
#include "torch_implementations.h"

namespace opcert::torch_backend {
namespace {

void run(const sdk::GemmOperands& g) {
  const at::Tensor a = wrap(*g.a);
  at::Tensor b = wrap(*g.b);
  if (g.b_layout == sdk::BLayout::kKN) b = b.t();  // a view: linear wants the weight [N, K]
  c10::optional<at::Tensor> bias = wrap(g.bias);
  const sdk::Tensor& c_out = *g.c;
  if (compute_dtype(a.scalar_type(), a.device()) == a.scalar_type() && c_out.numel() > 0) {
    // Straight into the output, as at::linear computes it (addmm with the bias, else mm), without
    // a temporary and a copy: the peer's time is torch's GEMM alone.
    at::Tensor c = wrap(c_out);
    if (bias)
      at::addmm_out(c, *bias, a, b.t());
    else
      at::mm_out(c, a, b.t());
    return;
  }
  if (bias) bias = to_compute_dtype(*bias);
  write_output(c_out, at::linear(to_compute_dtype(a), to_compute_dtype(b), bias));
}

std::string library_call(const sdk::GemmOperands& g) {
  const std::string b = g.b_layout == sdk::BLayout::kKN ? "b" : "b.t()";
  const at::ScalarType dtype = scalar_type(g.a->dtype());
  const at::Device device = g.a->device().type == OPCERT_DEVICE_CUDA ? at::Device(at::kCUDA) : at::Device(at::kCPU);
  if (compute_dtype(dtype, device) != dtype)
    return "torch.nn.functional.linear in fp32 (this LibTorch has no kernel for the dtype here), cast back";
  return g.bias ? "torch.addmm(bias, a, " + b + ", out=c)" : "torch.mm(a, " + b + ", out=c)";
}

std::vector<sdk::Implementation> gemm_implementations() {
  return {sdk::checked_implementation(
      {"torch.gemm.native", "gemm", "at::linear in the operands' dtype (fp32 accumulation inside torch)", operand_device_type()},
      sdk::parse_gemm, run, nullptr, library_call)};
}

}  // namespace

OPCERT_REGISTER_IMPLEMENTATIONS(TorchImplementations, "gemm", gemm_implementations)

}  // namespace opcert::torch_backend
