// gemm_fp8 (docs/OPS.md): scaled fp8 GEMM, a/b each e4m3fn or e5m2, scales per tensor, per
// token x per channel, or DeepSeek blocks (1 x 128 for A, 128 x 128 for B); out bf16/fp16/fp32.
// fp8 is decoded exactly to fp32 while packing; products are exact, accumulation is fp32. Block
// scaling accumulates each K block on its own, then scales and adds it (TileUpdate::kScale*).
#include <algorithm>
#include <vector>

#include "ops/cpu_numeric.h"
#include "ops/cpu_ops.h"
#include "ops/gemm_call_check.h"
#include "ops/gemm_driver.h"
#include "ops/gemm_epilogue.h"
#include "ops/gemm_registration.h"

namespace opcert::cpu {
namespace {

enum class Scaling { kTensor, kChannel, kBlock };

struct Fp8Args {
  std::optional<sdk::Tensor> a, b, a_scale, b_scale, bias, c;
  Scaling scaling = Scaling::kTensor;
  int64_t block = 128;
  int64_t m = 0, n = 0, k = 0;
};

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

// A scalar scale: [1] by the contract; a 0-d tensor holds one value too.
void check_scalar(CallCheck& check, const sdk::Tensor& t) {
  check.require(t.numel() == 1 && t.ndim() <= 1,
                std::string(t.name()) + " has shape " + shape_string({t.shape().begin(), t.shape().end()}) +
                    ", expected [1] for scaling \"tensor\"");
}

Fp8Args parse(const sdk::OpCall& call, CallCheck& check) {
  Fp8Args g;
  g.a = check.input("a");
  g.b = check.input("b");
  g.a_scale = check.input("a_scale");
  g.b_scale = check.input("b_scale");
  g.bias = check.input("bias", false);
  g.c = check.output("c");
  const std::string scaling = string_choice(check, call, "scaling", "tensor", {"tensor", "channel", "block"});
  g.scaling = scaling == "channel" ? Scaling::kChannel : scaling == "block" ? Scaling::kBlock : Scaling::kTensor;
  const opcert_attr* block = call.find_attr("block_size");
  if (block != nullptr) {
    check.require(block->kind == OPCERT_ATTR_INT, "attribute 'block_size' must be an int");
    if (block->kind == OPCERT_ATTR_INT) g.block = block->i;
    check.require(g.block > 0, "block_size must be positive (got " + std::to_string(g.block) + ")");
  }
  if (!check.ok()) return g;
  check.dtype(*g.a, {OPCERT_DTYPE_F8_E4M3FN, OPCERT_DTYPE_F8_E5M2});
  check.dtype(*g.b, {OPCERT_DTYPE_F8_E4M3FN, OPCERT_DTYPE_F8_E5M2});
  check.dtype(*g.a_scale, {OPCERT_DTYPE_F32});
  check.dtype(*g.b_scale, {OPCERT_DTYPE_F32});
  check.dtype(*g.c, {OPCERT_DTYPE_BF16, OPCERT_DTYPE_F16, OPCERT_DTYPE_F32});
  if (g.bias)
    check.require(g.bias->dtype() == g.c->dtype(), "bias is " + dtype_name(g.bias->dtype()) +
                                                       ", expected the output dtype " + dtype_name(g.c->dtype()));
  check.require(g.a->ndim() == 2, "a must be 2-D [M, K]");
  check.require(g.b->ndim() == 2, "b must be 2-D [N, K]");
  if (!check.ok()) return g;
  g.m = g.a->dim(0);
  g.k = g.a->dim(1);
  g.n = g.b->dim(0);
  check.shape(*g.b, {g.n, g.k}, "[N, K]");
  check.shape(*g.c, {g.m, g.n}, "[M, N]");
  if (g.bias) check.shape(*g.bias, {g.n}, "[N]");
  switch (g.scaling) {
    case Scaling::kTensor:
      check_scalar(check, *g.a_scale);
      check_scalar(check, *g.b_scale);
      break;
    case Scaling::kChannel:
      check.shape(*g.a_scale, {g.m}, "[M]");
      check.shape(*g.b_scale, {g.n}, "[N]");
      break;
    case Scaling::kBlock: {
      const int64_t kb = ceil_div(g.k, g.block);
      check.shape(*g.a_scale, {g.m, kb}, "[M, ceil(K/" + std::to_string(g.block) + ")]");
      check.shape(*g.b_scale, {ceil_div(g.n, g.block), kb},
                  "[ceil(N/" + std::to_string(g.block) + "), ceil(K/" + std::to_string(g.block) + ")]");
      break;
    }
  }
  return g;
}

void compute(const Fp8Args& g) {
  const int32_t out_dtype = g.c->dtype();
  const std::vector<float> bias = bias_as_f32(g.bias, out_dtype, g.n);
  const float* as = g.a_scale->data<const float>();
  const float* bs = g.b_scale->data<const float>();
  void* out = g.c->data();
  const int64_t n = g.n;
  const Scaling scaling = g.scaling;

  BlockScales blocks{as, ceil_div(g.k, g.block), bs, ceil_div(g.k, g.block), g.block};
  F32Gemm problem;
  problem.a = {g.a->data(), g.a->dtype(), g.k, 1};
  problem.b = {g.b->data(), g.b->dtype(), g.k, 1};
  problem.m = g.m;
  problem.n = g.n;
  problem.k = g.k;
  problem.block_scales = scaling == Scaling::kBlock ? &blocks : nullptr;
  problem.epilogue = [&](int64_t m0, int64_t n0, int64_t mc, int64_t nc, const float* acc, int64_t ld) {
    store_tile(out_dtype, out, n, bias, m0, n0, mc, nc, [&](int64_t i, int64_t col, int64_t jt) {
      float v = acc[i * ld + jt];
      if (scaling == Scaling::kTensor) v = (as[0] * bs[0]) * v;
      if (scaling == Scaling::kChannel) v = (as[m0 + i] * bs[col]) * v;
      return v;
    });
  };
  run_f32_gemm(problem, active_isa());
}

}  // namespace

std::vector<sdk::Implementation> gemm_fp8_implementations() {
  return checked_implementation<Fp8Args>(
      "cpu.gemm_fp8.blocked", "gemm_fp8",
      "fp8 decoded to fp32 while packing, fp32 accumulation, tensor/channel/block scales",
      parse, compute);
}

}  // namespace opcert::cpu
