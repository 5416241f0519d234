// cuda.attention.flash: scaled dot-product attention forward (docs/OPS.md "attention"), BSHD or
// varlen, bottom-right causal mask, sliding window, GQA/MQA by index mapping, optional lse.
// fp16/bf16 with D 64/128/256 run the tensor-core kernel (attention_flash_kernel.cuh); fp32 and
// every other case the simple fp32-math kernel (attention_fp32.cu). This file checks the call
// against the contract, picks the kernel and registers the implementation.
#include <opcert/sdk/call_check.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>

#include "cuda_check.h"
#include "ops/attention_flash_kernel.cuh"
#include "ops/attention_params.h"
#include "ops/cuda_ops.h"

namespace opcert::cuda {
namespace {

using attn::Dtype;
using attn::Params;

/// The operands of one call, checked against the contract (mirrors cpu.attention.flash).
struct AttentionCall {
  std::optional<sdk::Tensor> q, k, v, o, lse, cu_q, cu_k;
  bool varlen = false;
  int64_t batch = 0, sq = 0, skv = 0, tq = 0, tk = 0;
  int64_t hq = 0, hkv = 0, d = 0;
  double scale = 1.0;
  bool causal = false;
  int64_t window_left = -1;
  Dtype dtype = Dtype::f32;
};

std::string shape_text(const sdk::Tensor& t) {
  std::string text(1, '\'');
  text.append(t.name()).append("' ").append(sdk::shape_string({t.shape().begin(), t.shape().end()}));
  return text;
}

AttentionCall parse(const sdk::OpCall& call, sdk::CallCheck& check) {
  AttentionCall a;
  a.q = check.input("q");
  a.k = check.input("k");
  a.v = check.input("v");
  a.o = check.output("o");
  a.lse = check.output("lse", false);
  a.cu_q = check.input("cu_seqlens_q", false);
  a.cu_k = check.input("cu_seqlens_k", false);
  if (!check.ok()) return a;
  check.require(a.cu_q.has_value() == a.cu_k.has_value(),
                "attention needs both 'cu_seqlens_q' and 'cu_seqlens_k' or neither");
  check.dtype(*a.q, {OPCERT_DTYPE_F32, OPCERT_DTYPE_F16, OPCERT_DTYPE_BF16});
  for (const auto& t : {a.k, a.v, a.o})
    check.require(t->dtype() == a.q->dtype(), "attention '" + std::string(t->name()) + "' is " +
                                                  sdk::dtype_name(t->dtype()) + " but 'q' is " +
                                                  sdk::dtype_name(a.q->dtype()));
  if (!check.ok()) return a;
  a.dtype = a.q->dtype() == OPCERT_DTYPE_F32 ? Dtype::f32 : a.q->dtype() == OPCERT_DTYPE_F16 ? Dtype::f16 : Dtype::bf16;
  a.varlen = a.cu_q.has_value();
  const int32_t rank = a.varlen ? 3 : 4;
  for (const auto& t : {a.q, a.k, a.v})
    check.require(t->ndim() == rank, std::string("attention ") + (a.varlen ? "varlen [T, H, D]" : "BSHD [B, S, H, D]") +
                                         " expects rank " + std::to_string(rank) + ", got " + shape_text(*t));
  if (!check.ok()) return a;
  check.shape(*a.v, {a.k->shape().begin(), a.k->shape().end()}, "the shape of 'k'");
  check.shape(*a.o, {a.q->shape().begin(), a.q->shape().end()}, "the shape of 'q'");
  a.hq = a.q->dim(-2);
  a.hkv = a.k->dim(-2);
  a.d = a.q->dim(-1);
  check.require(a.k->dim(-1) == a.d, "attention head dims differ: " + shape_text(*a.q) + ", " + shape_text(*a.k));
  check.require(a.hkv >= 1 && a.hq % a.hkv == 0, "attention query heads (" + std::to_string(a.hq) +
                                                     ") must be a multiple of key/value heads (" +
                                                     std::to_string(a.hkv) + ")");
  if (a.varlen) {
    for (const auto& t : {a.cu_q, a.cu_k})
      check.require(t->dtype() == OPCERT_DTYPE_I32 && t->ndim() == 1 && t->dim(0) >= 1,
                    "attention " + shape_text(*t) + " must be int32 [B+1]");
    if (!check.ok()) return a;
    check.require(a.cu_q->dim(0) == a.cu_k->dim(0), "attention 'cu_seqlens_q' and 'cu_seqlens_k' differ in length");
    a.batch = a.cu_q->dim(0) - 1;
    a.tq = a.q->dim(0);
    a.tk = a.k->dim(0);
  } else {
    check.require(a.k->dim(0) == a.q->dim(0),
                  "attention batch sizes differ: " + shape_text(*a.q) + ", " + shape_text(*a.k));
    a.batch = a.q->dim(0);
    a.sq = a.q->dim(1);
    a.skv = a.k->dim(1);
    a.tq = a.batch * a.sq;
    a.tk = a.batch * a.skv;
  }
  if (a.lse && check.ok()) {
    check.require(a.lse->dtype() == OPCERT_DTYPE_F32, "attention output 'lse' must be fp32");
    if (a.varlen) check.shape(*a.lse, {a.hq, a.tq}, "[Hq, Tq]");
    else check.shape(*a.lse, {a.batch, a.hq, a.sq}, "[B, Hq, Sq]");
  }
  a.scale = call.get_float("scale", a.d > 0 ? 1.0 / std::sqrt(static_cast<double>(a.d)) : 1.0);
  a.causal = call.get_int("causal", 0) != 0;
  a.window_left = call.get_int("window_left", -1);
  if (!check.ok()) return a;

  // What these kernels take.
  check.require(a.d >= 1, "head dim D = 0 is not supported");
  check.require(a.d <= attn::kSimpleMaxD, "head dim D = " + std::to_string(a.d) + " is above " +
                                              std::to_string(attn::kSimpleMaxD) + ", the most these kernels take");
  check.require(a.tq < attn::kMaxTokens && a.tk < attn::kMaxTokens,
                "attention with 2^30 or more tokens is not supported (int32 in-sequence indexing)");
  check.require(a.hq <= 65535, "attention with more than 65535 query heads is not supported (grid limit)");
  check.require(a.varlen || a.batch <= 65535, "attention BSHD batch above 65535 is not supported (grid limit)");
  return a;
}

Params params_of(const AttentionCall& a) {
  Params p;
  p.q = a.q->data<const void>();
  p.k = a.k->data<const void>();
  p.v = a.v->data<const void>();
  p.o = a.o->data<void>();
  p.lse = a.lse ? a.lse->data<float>() : nullptr;
  if (a.varlen) {
    p.cu_q = a.cu_q->data<const int32_t>();
    p.cu_k = a.cu_k->data<const int32_t>();
  }
  p.batch = static_cast<int>(a.batch);
  p.hq = static_cast<int>(a.hq);
  p.hkv = static_cast<int>(a.hkv);
  p.group = static_cast<int>(a.hq / a.hkv);
  p.d = static_cast<int>(a.d);
  p.sq = static_cast<int>(a.sq);
  p.skv = static_cast<int>(a.skv);
  p.tq = a.tq;
  p.tk = a.tk;
  p.scale = static_cast<float>(a.scale);
  p.scale_log2 = static_cast<float>(a.scale * 1.4426950408889634);  // log2(e)
  p.causal = a.causal ? 1 : 0;
  // A window at least as wide as every sequence is no window; clamping keeps index sums in int32.
  p.window_left = a.window_left < 0 ? -1 : static_cast<int>(std::min<int64_t>(a.window_left, attn::kMaxTokens));
  return p;
}

/// The tensor-core kernel takes fp16/bf16, D 64/128/256 and a positive finite scale (its running
/// max is taken over raw scores); fp32 stays on fp32 math.
bool flash_shape_ok(const AttentionCall& a, const cudaDeviceProp& props) {
  if (a.dtype == Dtype::f32) return false;
  const int smem = attn::flash_smem_bytes(static_cast<int>(a.d));
  // (+ the kernel's few static bytes)
  if (smem == 0 || static_cast<std::size_t>(smem) + 256 > props.sharedMemPerBlockOptin) return false;
  const float scale = static_cast<float>(a.scale);
  return std::isfinite(scale) && scale > 0.0f && static_cast<double>(scale) * 1.4426950408889634 < 3.0e38;
}

bool aligned16(const void* ptr) { return (reinterpret_cast<std::uintptr_t>(ptr) & 15u) == 0; }

sdk::Support query(const sdk::OpCall& call) {
  sdk::CallCheck check(call, false, OPCERT_DEVICE_CUDA);
  parse(call, check);
  return check.support();
}

void run(CudaContext& ctx, const sdk::OpCall& call) {
  sdk::CallCheck check(call, true, OPCERT_DEVICE_CUDA);
  const AttentionCall a = parse(call, check);
  check.throw_if_failed();
  if (a.tq == 0 || a.batch == 0) return;  // no query: o and lse are empty
  const Params p = params_of(a);
  const bool flash = flash_shape_ok(a, ctx.props) && aligned16(p.q) && aligned16(p.k) && aligned16(p.v) &&
                     aligned16(p.o);
  if (flash) attn::launch_flash(p, a.dtype, ctx.stream);
  else attn::launch_simple(p, a.dtype, ctx.stream);
}

}  // namespace

namespace attn {

int flash_smem_bytes(int d) {
  switch (d) {
    case 64: return FlashConfigFor<64>::type::kSmemBytes;
    case 128: return FlashConfigFor<128>::type::kSmemBytes;
    case 256: return FlashConfigFor<256>::type::kSmemBytes;
    default: return 0;
  }
}

void launch_flash(const Params& p, Dtype dtype, cudaStream_t stream) {
  if (dtype == Dtype::bf16) launch_flash_bf16(p, stream);
  else if (dtype == Dtype::f16) launch_flash_fp16(p, stream);
}

}  // namespace attn

std::vector<sdk::Implementation> attention_implementations(CudaContext& ctx) {
  return {{"cuda.attention.flash", "attention",
           "FlashAttention-2 forward: fp16/bf16 with D 64/128/256 on mma.sync tensor cores (cp.async double "
           "buffering, online softmax in fp32, masked tiles skipped); fp32 and other head dims on an fp32-math "
           "kernel. BSHD and varlen, causal, window, GQA/MQA, lse",
           query, [&ctx](const sdk::OpCall& call) { run(ctx, call); }}};
}

}  // namespace opcert::cuda
