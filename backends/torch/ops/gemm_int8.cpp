// gemm_int8: at::_int_mm on CUDA with LibTorch >= 2.1 where its shape rules hold (M > 16, K and
// N multiples of 8); elsewhere the int8 operands are multiplied in fp64, exact for the suites'
// K < 2^17 (|sum| < 2^31) and fast through BLAS. The int32 sum is then dequantized in fp32.
// Operands: the SDK's parse_gemm_int8.
#include <opcert/sdk/checked_implementation.h>
#include <opcert/sdk/ops/gemm_int8.h>

#include "tensor_bridge.h"
#include "torch_implementations.h"
#include "torch_version.h"

namespace opcert::torch_backend {
namespace {

// The exact int32 products a·bᵀ.
at::Tensor int_matmul(const at::Tensor& a, const at::Tensor& b) {
#if OPCERT_TORCH_AT_LEAST(2, 1)
  if (a.is_cuda() && a.size(0) > 16 && a.size(1) % 8 == 0 && b.size(0) % 8 == 0) {
    try {
      return at::_int_mm(a, b.t());
    } catch (const c10::Error&) {
      // a GPU or layout _int_mm does not take: fall through to the exact fp64 product
    }
  }
#endif
  return at::mm(a.to(at::kDouble), b.to(at::kDouble).t()).to(at::kInt);
}

void run(const sdk::GemmInt8Operands& g) {
  const sdk::Tensor& out = *g.c;
  const at::Tensor acc = int_matmul(wrap(*g.a), wrap(*g.b));
  if (!g.dequantize) return write_output(out, acc);
  const at::Tensor a_scale = wrap(*g.a_scale), b_scale = wrap(*g.b_scale);
  at::Tensor c = acc.to(at::kFloat) * a_scale.unsqueeze(1) * b_scale.unsqueeze(0);
  if (auto bias = wrap(g.bias)) c = c + bias->to(at::kFloat);
  write_output(out, c.to(scalar_type(out.dtype())));
}

std::string library_call(const sdk::GemmInt8Operands& g) {
  std::string product;
#if OPCERT_TORCH_AT_LEAST(2, 1)
  if (g.a->device().type == OPCERT_DEVICE_CUDA && g.m > 16 && g.k % 8 == 0 && g.n % 8 == 0)
    product = "torch._int_mm(a, b.t())";
#endif
  if (product.empty()) product = "exact fp64 torch.mm (torch._int_mm needs CUDA, M > 16, K and N multiples of 8)";
  return g.dequantize ? product + "; then (acc.float() * scale_a[:,None] * scale_b[None,:]" + (g.bias ? " + bias" : "") +
                            ").to(out dtype)"
                      : product;
}

std::vector<sdk::Implementation> gemm_int8_implementations() {
  return {sdk::checked_implementation({"torch.gemm_int8.native", "gemm_int8",
                                       "at::_int_mm on CUDA (LibTorch >= 2.1), else exact fp64 at::mm; fp32 dequantization",
                                       operand_device_type()},
                                      sdk::parse_gemm_int8, run, nullptr, library_call)};
}

}  // namespace

OPCERT_REGISTER_IMPLEMENTATIONS(TorchImplementations, "gemm_int8", gemm_int8_implementations)

}  // namespace opcert::torch_backend
