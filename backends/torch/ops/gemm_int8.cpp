// gemm_int8: at::_int_mm on CUDA with LibTorch >= 2.1 where its shape rules hold (M > 16, K and
// N multiples of 8); elsewhere the int8 operands are multiplied in fp64, exact for the suites'
// K < 2^17 (|sum| < 2^31) and fast through BLAS. The int32 sum is then dequantized in fp32.
#include "ops/query_checks.h"
#include "ops/torch_ops.h"
#include "tensor_bridge.h"
#include "torch_version.h"

namespace opcert::torch_backend {
namespace {

using namespace checks;

bool dequantized(int32_t out_dtype) { return out_dtype != OPCERT_DTYPE_I32; }

sdk::Support query(const sdk::OpCall& call) {
  const sdk::Tensor a = call.input("a"), b = call.input("b"), c = call.output("c");
  if (auto s = all_of({dtype_in(a, {OPCERT_DTYPE_I8}), dtype_in(b, {OPCERT_DTYPE_I8}),
                       dtype_in(c, {OPCERT_DTYPE_I32, OPCERT_DTYPE_BF16, OPCERT_DTYPE_F16}), rank_is(a, 2),
                       rank_is(b, 2), rank_is(c, 2)});
      !s.supported)
    return s;
  const int64_t m = a.dim(0), k = a.dim(1), n = b.dim(0);
  if (auto s = all_of({shape_is(b, {n, k}), shape_is(c, {m, n})}); !s.supported) return s;
  if (!dequantized(c.dtype())) return sdk::Support::yes();
  const sdk::Tensor as = call.input("a_scale"), bs = call.input("b_scale");
  auto bias = call.find_input("bias");
  return all_of({dtype_in(as, {OPCERT_DTYPE_F32}), dtype_in(bs, {OPCERT_DTYPE_F32}), shape_is(as, {m}),
                 shape_is(bs, {n}), bias ? same_dtype(c, *bias) : "", bias ? shape_is(*bias, {n}) : ""});
}

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

void run(const sdk::OpCall& call) {
  const sdk::Tensor out = call.output("c");
  const at::Tensor acc = int_matmul(wrap(call.input("a")), wrap(call.input("b")));
  if (!dequantized(out.dtype())) return write_output(out, acc);
  const at::Tensor a_scale = wrap(call.input("a_scale")), b_scale = wrap(call.input("b_scale"));
  at::Tensor c = acc.to(at::kFloat) * a_scale.unsqueeze(1) * b_scale.unsqueeze(0);
  if (auto bias = wrap_input(call, "bias")) c = c + bias->to(at::kFloat);
  write_output(out, c.to(scalar_type(out.dtype())));
}

}  // namespace

std::vector<sdk::Implementation> gemm_int8_implementations() {
  return {{"torch.gemm_int8.native", "gemm_int8",
           "at::_int_mm on CUDA (LibTorch >= 2.1), else exact fp64 at::mm; fp32 dequantization", query, run}};
}

}  // namespace opcert::torch_backend
