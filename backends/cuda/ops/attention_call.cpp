// The limits and kernel parameters the CUDA attention implementations share (attention_call.h).
#include "ops/attention_call.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>

namespace opcert::cuda::attn {

Dtype dtype_of(const AttentionOperands& a) {
  return a.dtype == OPCERT_DTYPE_F32 ? Dtype::f32 : a.dtype == OPCERT_DTYPE_F16 ? Dtype::f16 : Dtype::bf16;
}

sdk::Support kernel_limits(const AttentionOperands& a) {
  // Checked first: dtype_of has no fp8, and every kernel behind these limits reads fp16/bf16/fp32.
  if (a.fp8())
    return sdk::Support::no("q, k and v are fp8_e4m3fn: these fp16/bf16/fp32 attention kernels take no fp8 "
                            "(FlashAttention-3's fp8 forward): cuda.attention.warpspec_fp8 or cuda.attention.flash_fp8 takes it");
  return shape_limits(a);
}

sdk::Support shape_limits(const AttentionOperands& a) {
  if (a.d > kSimpleMaxD)
    return sdk::Support::no("head dim D = " + std::to_string(a.d) + " is above " + std::to_string(kSimpleMaxD) +
                            ", the most these kernels take");
  if (a.tq >= kMaxTokens || a.tk >= kMaxTokens)
    return sdk::Support::no("attention with 2^30 or more tokens is not supported (int32 in-sequence indexing)");
  if (a.hq > 65535) return sdk::Support::no("attention with more than 65535 query heads is not supported (grid limit)");
  if (!a.varlen() && a.batch > 65535)
    return sdk::Support::no("attention BSHD batch above 65535 is not supported (grid limit)");
  return sdk::Support::yes();
}

Params params_of(const AttentionOperands& a) {
  Params p;
  p.q = a.q->data<const void>();
  p.k = a.k->data<const void>();
  p.v = a.v->data<const void>();
  p.o = a.o->data<void>();
  p.lse = a.lse ? a.lse->data<float>() : nullptr;
  p.q_descale = a.q_descale ? a.q_descale->data<const float>() : nullptr;
  p.k_descale = a.k_descale ? a.k_descale->data<const float>() : nullptr;
  p.v_descale = a.v_descale ? a.v_descale->data<const float>() : nullptr;
  if (a.varlen()) {
    p.cu_q = a.cu_seqlens_q->data<const int32_t>();
    p.cu_k = a.cu_seqlens_k->data<const int32_t>();
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
  attn::set_scale(p, a.scale);
  p.causal = a.causal ? 1 : 0;
  // A window at least as wide as every sequence is no window; clamping keeps index sums in int32.
  p.window_left = a.window_left < 0 ? -1 : static_cast<int>(std::min<int64_t>(a.window_left, attn::kMaxTokens));
  return p;
}

bool positive_scale(const AttentionOperands& a) {
  const float scale = static_cast<float>(a.scale);
  return std::isfinite(scale) && scale > 0.0f && static_cast<double>(scale) * attn::kLog2e < 3.0e38;
}

bool aligned16(const AttentionOperands& a) {
  for (const auto& t : {a.q, a.k, a.v, a.o})
    if ((reinterpret_cast<std::uintptr_t>(t->raw().data) & 15u) != 0) return false;
  return true;
}

}  // namespace opcert::cuda::attn
