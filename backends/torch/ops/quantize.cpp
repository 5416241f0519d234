// Dynamic quantization as vLLM writes it in torch: amax in fp32, scale = amax / qmax,
// q = round(clamp(x / scale, -qmax, qmax)); int8 rounds half to even (at::round), fp8 rounds in
// the cast (fp8_codec.h).
#include "fp8_codec.h"
#include "ops/query_checks.h"
#include "ops/torch_ops.h"
#include "tensor_bridge.h"

namespace opcert::torch_backend {
namespace {

using namespace checks;

double qmax_of(int32_t dtype) {
  switch (dtype) {
    case OPCERT_DTYPE_I8: return 127.0;
    case OPCERT_DTYPE_F8_E4M3FN: return 448.0;
    default: return 57344.0;  // e5m2
  }
}

sdk::Support query(const sdk::OpCall& call) {
  const sdk::Tensor x = call.input("x"), q = call.output("q"), scale = call.output("scale");
  const std::string granularity = call.get_string("granularity", "token");
  if (granularity != "token" && granularity != "tensor")
    return sdk::Support::no("granularity '" + granularity + "' is neither token nor tensor");
  if (auto s = all_of({dtype_in(x, {OPCERT_DTYPE_F32, OPCERT_DTYPE_F16, OPCERT_DTYPE_BF16}),
                       dtype_in(q, {OPCERT_DTYPE_I8, OPCERT_DTYPE_F8_E4M3FN, OPCERT_DTYPE_F8_E5M2}),
                       dtype_in(scale, {OPCERT_DTYPE_F32}), rank_is(x, 2)});
      !s.supported)
    return s;
  const int64_t m = x.dim(0), k = x.dim(1);
  return all_of({shape_is(q, {m, k}), shape_is(scale, {granularity == "token" ? m : 1})});
}

void run(const sdk::OpCall& call) {
  const sdk::Tensor q_out = call.output("q"), scale_out = call.output("scale");
  const bool per_token = call.get_string("granularity", "token") == "token";
  const at::Tensor x = wrap(call.input("x")).to(at::kFloat);
  const double qmax = qmax_of(q_out.dtype());
  // amax of an empty row (K = 0) or tensor is 0, not an error.
  at::Tensor amax = x.numel() == 0 ? at::zeros({per_token ? x.size(0) : 1, 1}, x.options())
                    : per_token    ? x.abs().amax({-1}, /*keepdim=*/true)
                                   : x.abs().amax().reshape({1, 1});
  const at::Tensor scale = amax / qmax;
  // scale 0 (an all-zero row) quantizes every element to 0.
  const at::Tensor scaled = at::where(scale > 0, x / scale, at::zeros({}, x.options())).clamp(-qmax, qmax);
  at::Tensor q = q_out.dtype() == OPCERT_DTYPE_I8 ? scaled.round().to(at::kChar) : float_to_fp8(scaled, q_out.dtype());
  write_output(q_out, q);
  write_output(scale_out, scale.reshape({-1}));
}

}  // namespace

std::vector<sdk::Implementation> quantize_implementations() {
  return {{"torch.quantize.native", "quantize", "amax / qmax in fp32, at::round (int8) or fp8 cast, per token or tensor",
           query, run}};
}

}  // namespace opcert::torch_backend
