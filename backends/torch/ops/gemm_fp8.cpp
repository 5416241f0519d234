// gemm_fp8: at::_scaled_mm on CUDA with LibTorch >= 2.5 where it takes the call (per-tensor and
// row-wise scaling); everywhere else torch's decomposition: decode fp8 to fp32, matmul in fp32
// (fp8 products are exact in fp32), apply the scales, add the bias, round once to the output.
#include "fp8_codec.h"
#include "ops/query_checks.h"
#include "ops/torch_ops.h"
#include "tensor_bridge.h"
#include "torch_version.h"

namespace opcert::torch_backend {
namespace {

using namespace checks;

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

sdk::Support query(const sdk::OpCall& call) {
  const sdk::Tensor a = call.input("a"), b = call.input("b"), c = call.output("c");
  const sdk::Tensor as = call.input("a_scale"), bs = call.input("b_scale");
  if (auto s = all_of({dtype_in(a, {OPCERT_DTYPE_F8_E4M3FN, OPCERT_DTYPE_F8_E5M2}),
                       dtype_in(b, {OPCERT_DTYPE_F8_E4M3FN, OPCERT_DTYPE_F8_E5M2}),
                       dtype_in(c, {OPCERT_DTYPE_BF16, OPCERT_DTYPE_F16, OPCERT_DTYPE_F32}), dtype_in(as, {OPCERT_DTYPE_F32}),
                       dtype_in(bs, {OPCERT_DTYPE_F32}), rank_is(a, 2), rank_is(b, 2), rank_is(c, 2)});
      !s.supported)
    return s;
  const int64_t m = a.dim(0), k = a.dim(1), n = b.dim(0);
  const std::string scaling = call.get_string("scaling", "tensor");
  const int64_t block = call.get_int("block_size", 128);
  auto bias = call.find_input("bias");
  std::vector<int64_t> a_scale_shape{1}, b_scale_shape{1};
  if (scaling == "channel") {
    a_scale_shape = {m};
    b_scale_shape = {n};
  } else if (scaling == "block") {
    if (block <= 0) return sdk::Support::no("block_size must be positive");
    a_scale_shape = {m, ceil_div(k, block)};
    b_scale_shape = {ceil_div(n, block), ceil_div(k, block)};
  } else if (scaling != "tensor") {
    return sdk::Support::no("unknown scaling '" + scaling + "'");
  }
  return all_of({shape_is(b, {n, k}), shape_is(c, {m, n}), shape_is(as, a_scale_shape), shape_is(bs, b_scale_shape),
                 bias ? same_dtype(c, *bias) : "", bias ? shape_is(*bias, {n}) : ""});
}

#if OPCERT_TORCH_AT_LEAST(2, 5)
// torch's fused fp8 GEMM: CUDA only; per-tensor scales [1] or row-wise [M,1] x [1,N]; K and N
// multiples of 16. Returns nullopt where torch refuses the call (e5m2 x e5m2, a bias with fp32
// output, a GPU it does not support), so the decomposition runs instead.
c10::optional<at::Tensor> scaled_mm(const sdk::OpCall& call, const at::Tensor& a, const at::Tensor& b,
                                    const at::Tensor& a_scale, const at::Tensor& b_scale,
                                    const c10::optional<at::Tensor>& bias, at::ScalarType out_dtype) {
  const std::string scaling = call.get_string("scaling", "tensor");
  if (!a.is_cuda() || scaling == "block" || a.size(1) % 16 != 0 || b.size(0) % 16 != 0) return std::nullopt;
  // Refusals seen on 2.11, skipped up front: a c10::Error (with its backtrace) is slow to throw.
  const bool both_e5m2 = call.input("a").dtype() == OPCERT_DTYPE_F8_E5M2 && call.input("b").dtype() == OPCERT_DTYPE_F8_E5M2;
  if (both_e5m2 || (bias.has_value() && out_dtype == at::kFloat)) return std::nullopt;
  auto native = [](const sdk::Tensor& t) {
    return t.dtype() == OPCERT_DTYPE_F8_E5M2 ? at::kFloat8_e5m2 : at::kFloat8_e4m3fn;
  };
  const at::Tensor a8 = a.view(native(call.input("a"))), b8 = b.view(native(call.input("b")));
  const bool rowwise = scaling == "channel";
  try {
    return at::_scaled_mm(a8, b8.t(), rowwise ? a_scale.view({-1, 1}) : a_scale, rowwise ? b_scale.view({1, -1}) : b_scale,
                          bias, c10::nullopt, out_dtype, /*use_fast_accum=*/false);
  } catch (const c10::Error&) {
    return std::nullopt;
  }
}
#endif

// Σ_j a_scale[m,j]·b_scale[n/bs,j]·(a_j·b_jᵀ) over K blocks j, in fp32, one matmul per block.
at::Tensor block_scaled(const at::Tensor& af, const at::Tensor& bf, const at::Tensor& a_scale, const at::Tensor& b_scale,
                        int64_t block) {
  const int64_t k = af.size(1), n = bf.size(0);
  at::Tensor acc = at::zeros({af.size(0), n}, af.options());
  // b_scale rows are per 128 output channels: expand to one row per channel.
  const at::Tensor b_scale_rows = b_scale.repeat_interleave(block, 0).narrow(0, 0, n);
  for (int64_t j = 0; j * block < k; ++j) {
    const int64_t width = std::min(block, k - j * block);
    const at::Tensor partial = at::mm(af.narrow(1, j * block, width), bf.narrow(1, j * block, width).t());
    acc.add_(partial * a_scale.select(1, j).unsqueeze(1) * b_scale_rows.select(1, j).unsqueeze(0));
  }
  return acc;
}

void run(const sdk::OpCall& call) {
  const sdk::Tensor out = call.output("c");
  const at::ScalarType out_dtype = scalar_type(out.dtype());
  const at::Tensor a = wrap(call.input("a")), b = wrap(call.input("b"));
  const at::Tensor a_scale = wrap(call.input("a_scale")), b_scale = wrap(call.input("b_scale"));
  const c10::optional<at::Tensor> bias = wrap_input(call, "bias");
#if OPCERT_TORCH_AT_LEAST(2, 5)
  if (auto fused = scaled_mm(call, a, b, a_scale, b_scale, bias, out_dtype)) return write_output(out, *fused);
#endif
  const at::Tensor af = fp8_to_float(a, call.input("a").dtype()), bf = fp8_to_float(b, call.input("b").dtype());
  const std::string scaling = call.get_string("scaling", "tensor");
  at::Tensor acc;
  if (scaling == "block") {
    acc = block_scaled(af, bf, a_scale, b_scale, call.get_int("block_size", 128));
  } else if (scaling == "channel") {
    acc = at::mm(af, bf.t()) * a_scale.unsqueeze(1) * b_scale.unsqueeze(0);
  } else {
    acc = at::mm(af, bf.t()) * (a_scale * b_scale);
  }
  if (bias) acc = acc + bias->to(at::kFloat);
  write_output(out, acc.to(out_dtype));
}

}  // namespace

std::vector<sdk::Implementation> gemm_fp8_implementations() {
  return {{"torch.gemm_fp8.native", "gemm_fp8",
           "at::_scaled_mm on CUDA (LibTorch >= 2.5, per-tensor/row-wise), else fp8 decoded to fp32, at::mm, scales, bias",
           query, run}};
}

}  // namespace opcert::torch_backend
