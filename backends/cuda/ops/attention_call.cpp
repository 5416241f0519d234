// The attention call parser shared by the CUDA attention implementations (attention_call.h).
#include "ops/attention_call.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>

namespace opcert::cuda::attn {

namespace {

std::string shape_text(const sdk::Tensor& t) {
  std::string text(1, '\'');
  text.append(t.name()).append("' ").append(sdk::shape_string({t.shape().begin(), t.shape().end()}));
  return text;
}

}  // namespace

AttentionCall parse_call(const sdk::OpCall& call, sdk::CallCheck& check) {
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

bool positive_scale(const AttentionCall& a) {
  const float scale = static_cast<float>(a.scale);
  return std::isfinite(scale) && scale > 0.0f && static_cast<double>(scale) * 1.4426950408889634 < 3.0e38;
}

bool aligned16(const AttentionCall& a) {
  for (const auto& t : {a.q, a.k, a.v, a.o})
    if ((reinterpret_cast<std::uintptr_t>(t->raw().data) & 15u) != 0) return false;
  return true;
}

}  // namespace opcert::cuda::attn
