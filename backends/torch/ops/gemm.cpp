// gemm through at::linear in the operands' dtype: torch accumulates fp16/bf16 products in fp32
// and rounds once, the contract's c = round(a·bᵀ + bias).
#include "ops/query_checks.h"
#include "ops/torch_ops.h"
#include "tensor_bridge.h"

namespace opcert::torch_backend {
namespace {

using namespace checks;

sdk::Support query(const sdk::OpCall& call) {
  const sdk::Tensor a = call.input("a"), b = call.input("b"), c = call.output("c");
  const std::string layout = call.get_string("b_layout", "nk");
  if (layout != "nk" && layout != "kn") return sdk::Support::no("b_layout '" + layout + "' is neither nk nor kn");
  if (auto s = all_of({dtype_in(a, {OPCERT_DTYPE_F32, OPCERT_DTYPE_F16, OPCERT_DTYPE_BF16}), same_dtype(a, b),
                       same_dtype(a, c), rank_is(a, 2), rank_is(b, 2), rank_is(c, 2)});
      !s.supported)
    return s;
  const int64_t m = a.dim(0), k = a.dim(1), n = layout == "nk" ? b.dim(0) : b.dim(1);
  auto bias = call.find_input("bias");
  return all_of({shape_is(b, layout == "nk" ? std::vector<int64_t>{n, k} : std::vector<int64_t>{k, n}),
                 shape_is(c, {m, n}), bias ? same_dtype(a, *bias) : "", bias ? shape_is(*bias, {n}) : ""});
}

void run(const sdk::OpCall& call) {
  const at::Tensor a = wrap(call.input("a"));
  at::Tensor b = wrap(call.input("b"));
  if (call.get_string("b_layout", "nk") == "kn") b = b.t();  // a view: linear wants the weight [N, K]
  c10::optional<at::Tensor> bias = wrap_input(call, "bias");
  const sdk::Tensor c_out = call.output("c");
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

}  // namespace

std::vector<sdk::Implementation> gemm_implementations() {
  return {{"torch.gemm.native", "gemm", "at::linear in the operands' dtype (fp32 accumulation inside torch)", query, run}};
}

}  // namespace opcert::torch_backend
