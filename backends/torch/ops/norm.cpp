// rms_norm and layer_norm as a torch model writes them. The residual add runs in the dtype
// (torch rounds x + residual once). rms_norm is at::rms_norm where LibTorch has it (>= 2.4); before
// that it is composed the way HF Llama does it, in fp32, with the weight applied in fp32 before the
// one cast back;
// layer_norm is at::layer_norm in the dtype (fp32 statistics inside torch).
#include "ops/query_checks.h"
#include "ops/torch_ops.h"
#include "tensor_bridge.h"
#include "torch_version.h"

namespace opcert::torch_backend {
namespace {

using namespace checks;

sdk::Support query(const sdk::OpCall& call, bool with_bias) {
  const sdk::Tensor x = call.input("x"), y = call.output("y");
  if (auto s = all_of({dtype_in(x, {OPCERT_DTYPE_F32, OPCERT_DTYPE_F16, OPCERT_DTYPE_BF16}), rank_is(x, 2), same_dtype(x, y)});
      !s.supported)
    return s;
  const std::vector<int64_t> shape(x.shape().begin(), x.shape().end()), row{x.dim(1)};
  auto w = call.find_input("weight"), b = call.find_input("bias"), r = call.find_input("residual");
  auto r_out = call.find_output("residual_out");
  if (r.has_value() != r_out.has_value()) return sdk::Support::no("residual and residual_out come together");
  return all_of({shape_is(y, shape), w ? same_dtype(x, *w) : "", w ? shape_is(*w, row) : "",
                 with_bias && b ? same_dtype(x, *b) : "", with_bias && b ? shape_is(*b, row) : "",
                 r ? same_dtype(x, *r) : "", r ? shape_is(*r, shape) : "", r_out ? same_dtype(x, *r_out) : "",
                 r_out ? shape_is(*r_out, shape) : ""});
}

// x, or x + residual in the dtype written to residual_out.
at::Tensor residual_input(const sdk::OpCall& call) {
  const at::Tensor x = wrap(call.input("x"));
  const auto residual = wrap_input(call, "residual");
  if (!residual) return x;
  const at::Tensor r = x + *residual;
  write_output(call.output("residual_out"), r);
  return r;
}

void run_rms(const sdk::OpCall& call) {
  const at::Tensor r = residual_input(call);
#if OPCERT_TORCH_AT_LEAST(2, 4)
  // torch's own rms_norm (fused on CUDA in recent releases), what a model calling
  // torch.nn.functional.rms_norm gets; statistics in fp32 inside torch.
  {
    c10::optional<at::Tensor> w = wrap_input(call, "weight");
    write_output(call.output("y"), at::rms_norm(r, {r.size(-1)}, w, call.get_float("eps", 1e-6)));
    return;
  }
#endif
  const at::Tensor rf = r.to(at::kFloat);
  at::Tensor y = rf * at::rsqrt(rf.pow(2).mean({-1}, /*keepdim=*/true) + call.get_float("eps", 1e-6));
  if (auto w = wrap_input(call, "weight")) y = y * w->to(at::kFloat);
  write_output(call.output("y"), y.to(r.scalar_type()));
}

void run_layer(const sdk::OpCall& call) {
  const at::Tensor r = residual_input(call);
  c10::optional<at::Tensor> w = wrap_input(call, "weight"), b = wrap_input(call, "bias");
  if (w) w = to_compute_dtype(*w);
  if (b) b = to_compute_dtype(*b);
  const at::Tensor y = at::layer_norm(to_compute_dtype(r), {r.size(-1)}, w, b, call.get_float("eps", 1e-5));
  write_output(call.output("y"), y.to(r.scalar_type()));
}

}  // namespace

std::vector<sdk::Implementation> norm_implementations() {
  return {{"torch.rms_norm.native", "rms_norm", "HF-Llama-style fp32 composition, residual add in the dtype",
           [](const sdk::OpCall& c) { return query(c, false); }, run_rms},
          {"torch.layer_norm.native", "layer_norm", "at::layer_norm in the dtype, residual add in the dtype",
           [](const sdk::OpCall& c) { return query(c, true); }, run_layer}};
}

}  // namespace opcert::torch_backend
