// gemm_fp8: at::_scaled_mm on CUDA with LibTorch >= 2.5 where it takes the call (per-tensor and
// row-wise scaling); everywhere else torch's decomposition: decode fp8 to fp32, matmul in fp32
// (fp8 products are exact in fp32), apply the scales, add the bias, round once to the output.
// Operands: the SDK's parse_gemm_fp8.
#include <opcert/sdk/checked_implementation.h>
#include <opcert/sdk/ops/gemm_fp8.h>

#include "fp8_codec.h"
#include "ops/torch_ops.h"
#include "tensor_bridge.h"
#include "torch_version.h"

namespace opcert::torch_backend {
namespace {

#if OPCERT_TORCH_AT_LEAST(2, 5)
// torch's fused fp8 GEMM: CUDA only; per-tensor scales [1] or row-wise [M,1] x [1,N]; K and N
// multiples of 16. Returns nullopt where torch refuses the call (e5m2 x e5m2, a bias with fp32
// output, a GPU it does not support), so the decomposition runs instead.
c10::optional<at::Tensor> scaled_mm(const sdk::GemmFp8Operands& g, const at::Tensor& a, const at::Tensor& b,
                                    const at::Tensor& a_scale, const at::Tensor& b_scale,
                                    const c10::optional<at::Tensor>& bias, at::ScalarType out_dtype) {
  if (!a.is_cuda() || g.scaling == sdk::Fp8Scaling::kBlock || a.size(1) % 16 != 0 || b.size(0) % 16 != 0)
    return std::nullopt;
  // Refusals seen on 2.11, skipped up front: a c10::Error (with its backtrace) is slow to throw.
  const bool both_e5m2 = g.a->dtype() == OPCERT_DTYPE_F8_E5M2 && g.b->dtype() == OPCERT_DTYPE_F8_E5M2;
  if (both_e5m2 || (bias.has_value() && out_dtype == at::kFloat)) return std::nullopt;
  auto native = [](const sdk::Tensor& t) {
    return t.dtype() == OPCERT_DTYPE_F8_E5M2 ? at::kFloat8_e5m2 : at::kFloat8_e4m3fn;
  };
  const at::Tensor a8 = a.view(native(*g.a)), b8 = b.view(native(*g.b));
  const bool rowwise = g.scaling == sdk::Fp8Scaling::kChannel;
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

void run(const sdk::GemmFp8Operands& g) {
  const sdk::Tensor& out = *g.c;
  const at::ScalarType out_dtype = scalar_type(out.dtype());
  const at::Tensor a = wrap(*g.a), b = wrap(*g.b);
  const at::Tensor a_scale = wrap(*g.a_scale), b_scale = wrap(*g.b_scale);
  const c10::optional<at::Tensor> bias = wrap(g.bias);
#if OPCERT_TORCH_AT_LEAST(2, 5)
  if (auto fused = scaled_mm(g, a, b, a_scale, b_scale, bias, out_dtype)) return write_output(out, *fused);
#endif
  const at::Tensor af = fp8_to_float(a, g.a->dtype()), bf = fp8_to_float(b, g.b->dtype());
  at::Tensor acc;
  if (g.scaling == sdk::Fp8Scaling::kBlock) {
    acc = block_scaled(af, bf, a_scale, b_scale, g.block);
  } else if (g.scaling == sdk::Fp8Scaling::kChannel) {
    acc = at::mm(af, bf.t()) * a_scale.unsqueeze(1) * b_scale.unsqueeze(0);
  } else {
    acc = at::mm(af, bf.t()) * (a_scale * b_scale);
  }
  if (bias) acc = acc + bias->to(at::kFloat);
  write_output(out, acc.to(out_dtype));
}

}  // namespace

std::vector<sdk::Implementation> gemm_fp8_implementations() {
  return {sdk::checked_implementation(
      {"torch.gemm_fp8.native", "gemm_fp8",
       "at::_scaled_mm on CUDA (LibTorch >= 2.5, per-tensor/row-wise), else fp8 decoded to fp32, at::mm, scales, bias",
       operand_device_type()},
      sdk::parse_gemm_fp8, run)};
}

}  // namespace opcert::torch_backend
