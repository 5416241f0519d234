#include "ops/lt_gemm.h"

#include <cstdint>

#include "cuda_check.h"

namespace opcert::cuda {
namespace {

int64_t round16(int64_t v) { return (v + 15) / 16 * 16; }
std::size_t align256(std::size_t v) { return (v + 255) / 256 * 256; }

LtProblem padded(LtProblem p) {
  p.k = round16(p.k);
  p.n = round16(p.n);
  return p;
}

// Copies a rows × cols matrix of `elem` bytes into a zeroed rows_p × cols_p one.
void copy_padded(void* dst, const void* src, int64_t rows, int64_t cols, int64_t rows_p, int64_t cols_p, int elem,
                 cudaStream_t stream) {
  const std::size_t pitch = static_cast<std::size_t>(cols_p) * elem;
  OPCERT_CUDA_CHECK(cudaMemsetAsync(dst, 0, static_cast<std::size_t>(rows_p) * pitch, stream));
  if (rows * cols == 0) return;
  OPCERT_CUDA_CHECK(cudaMemcpy2DAsync(dst, pitch, src, static_cast<std::size_t>(cols) * elem,
                                      static_cast<std::size_t>(cols) * elem, static_cast<std::size_t>(rows),
                                      cudaMemcpyDeviceToDevice, stream));
}

}  // namespace

std::optional<std::string> lt_gemm_unsupported(CudaContext& ctx, const LtProblem& p) {
  if (!ctx.matmul().unsupported(p)) return std::nullopt;
  return ctx.matmul().unsupported(padded(p));
}

sdk::Support lt_gemm_support(CudaContext& ctx, const LtProblem& p) {
  if (p.m * p.n == 0 || p.k == 0) return sdk::Support::yes();
  if (auto why = lt_gemm_unsupported(ctx, p)) return sdk::Support::no(*why);
  return sdk::Support::yes();
}

void lt_gemm_run(CudaContext& ctx, const LtProblem& p, const LtOperands& o, ElementBytes bytes) {
  if (!ctx.matmul().unsupported(p)) {
    ctx.matmul().run(p, o);
    return;
  }
  const LtProblem q = padded(p);
  const std::size_t a_size = align256(static_cast<std::size_t>(q.m * q.k) * bytes.a);
  const std::size_t b_size = align256(static_cast<std::size_t>(q.n * q.k) * bytes.b);
  const std::size_t c_size = align256(static_cast<std::size_t>(q.m * q.n) * bytes.c);
  const std::size_t bias_size = align256(static_cast<std::size_t>(q.n) * bytes.c);
  const std::size_t scale_size = align256(static_cast<std::size_t>(q.n) * sizeof(float));
  auto* base = static_cast<char*>(ctx.scratch.get(a_size + b_size + c_size + bias_size + scale_size));
  char *a = base, *b = a + a_size, *c = b + b_size, *bias = c + c_size, *scale = bias + bias_size;

  copy_padded(a, o.a, p.m, p.k, q.m, q.k, bytes.a, ctx.stream);
  if (p.b_kn)
    copy_padded(b, o.b, p.k, p.n, q.k, q.n, bytes.b, ctx.stream);
  else
    copy_padded(b, o.b, p.n, p.k, q.n, q.k, bytes.b, ctx.stream);
  LtOperands po = o;
  po.a = a;
  po.b = b;
  po.c = c;
  if (p.bias) {
    copy_padded(bias, o.bias, 1, p.n, 1, q.n, bytes.c, ctx.stream);
    po.bias = bias;
  }
  if (p.scale_mode == ScaleMode::kOuterVector) {
    copy_padded(scale, o.b_scale, 1, p.n, 1, q.n, sizeof(float), ctx.stream);
    po.b_scale = reinterpret_cast<const float*>(scale);
  }
  ctx.matmul().run(q, po);
  if (p.m * p.n == 0) return;
  OPCERT_CUDA_CHECK(cudaMemcpy2DAsync(o.c, static_cast<std::size_t>(p.n) * bytes.c, c,
                                      static_cast<std::size_t>(q.n) * bytes.c, static_cast<std::size_t>(p.n) * bytes.c,
                                      static_cast<std::size_t>(p.m), cudaMemcpyDeviceToDevice, ctx.stream));
}

}  // namespace opcert::cuda
