// Dynamic quantization as vLLM writes it in torch: amax in fp32, scale = amax / qmax,
// q = round(clamp(x / scale, -qmax, qmax)); int8 rounds half to even (at::round), fp8 rounds in
// the cast (fp8_codec.h). Operands: the SDK's parse_quantize.
#include <opcert/sdk/checked_implementation.h>
#include <opcert/sdk/ops/quantize.h>

#include "fp8_codec.h"
#include "tensor_bridge.h"
#include "torch_implementations.h"

namespace opcert::torch_backend {
namespace {

void run(const sdk::QuantizeOperands& g) {
  const sdk::Tensor &q_out = *g.q, &scale_out = *g.scale;
  const bool per_token = g.granularity == sdk::QuantGranularity::kToken;
  const at::Tensor x = wrap(*g.x).to(at::kFloat);
  const double qmax = sdk::quantize_qmax(q_out.dtype());
  // amax of an empty row (K = 0) or tensor is 0, not an error.
  at::Tensor amax = x.numel() == 0 ? at::zeros({per_token ? x.size(0) : 1, 1}, x.options())
                    : per_token    ? x.abs().amax({-1}, /*keepdim=*/true)
                                   : x.abs().amax().reshape({1, 1});
  const at::Tensor scale = amax / qmax;
  // scale 0 (an all-zero row) quantizes every element to 0.
  const at::Tensor scaled = at::where(scale > 0, x / scale, at::zeros({}, x.options())).clamp(-qmax, qmax);
  at::Tensor q = q_out.dtype() == OPCERT_DTYPE_I8 ? scaled.round().to(at::kChar) : float_to_fp8(scaled, q_out.dtype(), /*in_range=*/true);
  write_output(q_out, q);
  write_output(scale_out, scale.reshape({-1}));
}

// torch has no fused dynamic quantization: the decomposition is what a torch user writes.
std::string library_call(const sdk::QuantizeOperands& g) {
  const bool per_token = g.granularity == sdk::QuantGranularity::kToken;
  return std::string("decomposition: amax = x.float().abs().amax(") + (per_token ? "-1, keepdim=True" : "") +
         "); scale = amax / qmax; q = (x / scale).clamp(-qmax, qmax)" +
         (g.q->dtype() == OPCERT_DTYPE_I8 ? ".round().to(torch.int8)" : ".to(torch.float8_*)");
}

std::vector<sdk::Implementation> quantize_implementations() {
  return {sdk::checked_implementation({"torch.quantize.native", "quantize",
                                       "amax / qmax in fp32, at::round (int8) or fp8 cast, per token or tensor",
                                       operand_device_type()},
                                      sdk::parse_quantize, run, nullptr, library_call)};
}

}  // namespace

OPCERT_REGISTER_IMPLEMENTATIONS(TorchImplementations, "quantize", quantize_implementations)

}  // namespace opcert::torch_backend
