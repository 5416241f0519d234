// rms_norm and layer_norm as a torch model writes them. The residual add runs in the dtype
// (torch rounds x + residual once). rms_norm is at::rms_norm where LibTorch has it (>= 2.4); before
// that it is composed the way HF Llama does it, in fp32, with the weight applied in fp32 before the
// one cast back;
// layer_norm is at::layer_norm in the dtype (fp32 statistics inside torch). Operands: the SDK's
// parse_rms_norm / parse_layer_norm.
#include <opcert/sdk/checked_implementation.h>
#include <opcert/sdk/ops/layer_norm.h>
#include <opcert/sdk/ops/rms_norm.h>

#include "tensor_bridge.h"
#include "torch_implementations.h"
#include "torch_version.h"

namespace opcert::torch_backend {
namespace {

// x, or x + residual in the dtype written to residual_out.
at::Tensor residual_input(const sdk::NormOperands& n) {
  const at::Tensor x = wrap(*n.x);
  if (!n.residual) return x;
  const at::Tensor r = x + wrap(*n.residual);
  write_output(*n.residual_out, r);
  return r;
}

void run_rms(const sdk::NormOperands& n) {
  const at::Tensor r = residual_input(n);
#if OPCERT_TORCH_AT_LEAST(2, 4)
  // torch's own rms_norm (fused on CUDA in recent releases), what a model calling
  // torch.nn.functional.rms_norm gets; statistics in fp32 inside torch.
  {
    c10::optional<at::Tensor> w = wrap(n.weight);
    write_output(*n.y, at::rms_norm(r, {r.size(-1)}, w, n.eps));
    return;
  }
#endif
  const at::Tensor rf = r.to(at::kFloat);
  at::Tensor y = rf * at::rsqrt(rf.pow(2).mean({-1}, /*keepdim=*/true) + n.eps);
  if (auto w = wrap(n.weight)) y = y * w->to(at::kFloat);
  write_output(*n.y, y.to(r.scalar_type()));
}

void run_layer(const sdk::NormOperands& n) {
  const at::Tensor r = residual_input(n);
  c10::optional<at::Tensor> w = wrap(n.weight), b = wrap(n.bias);
  if (w) w = to_compute_dtype(*w);
  if (b) b = to_compute_dtype(*b);
  const at::Tensor y = at::layer_norm(to_compute_dtype(r), {r.size(-1)}, w, b, n.eps);
  write_output(*n.y, y.to(r.scalar_type()));
}

std::string residual_call(const sdk::NormOperands& n) { return n.residual ? "h = x + residual (kept as residual_out); " : ""; }

std::string rms_call(const sdk::NormOperands& n) {
#if OPCERT_TORCH_AT_LEAST(2, 4)
  return residual_call(n) + "torch.nn.functional.rms_norm(" + (n.residual ? "h" : "x") + ", (N,)" +
         (n.weight ? ", weight" : "") + ", eps)";
#else
  return residual_call(n) + "HF-Llama composition in fp32 (this LibTorch has no rms_norm; 2.4 on)";
#endif
}

std::string layer_call(const sdk::NormOperands& n) {
  return residual_call(n) + "torch.nn.functional.layer_norm(" + (n.residual ? "h" : "x") + ", (N,)" +
         (n.weight ? ", weight" : "") + (n.bias ? ", bias" : "") + ", eps)";
}

std::vector<sdk::Implementation> norm_implementations() {
  return {sdk::checked_implementation({"torch.rms_norm.native", "rms_norm",
                                       "at::rms_norm (LibTorch >= 2.4, else the HF-Llama fp32 composition), residual add in the dtype", operand_device_type()},
                                      sdk::parse_rms_norm, run_rms, nullptr, rms_call),
          sdk::checked_implementation({"torch.layer_norm.native", "layer_norm",
                                       "at::layer_norm in the dtype, residual add in the dtype", operand_device_type()},
                                      sdk::parse_layer_norm, run_layer, nullptr, layer_call)};
}

}  // namespace

OPCERT_REGISTER_IMPLEMENTATIONS(TorchImplementations, "norm", norm_implementations)

}  // namespace opcert::torch_backend
