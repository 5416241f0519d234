// The operands of an attention call (docs/OPS.md "attention"), checked against the contract once
// for every backend: q, k, v in one dtype T (fp16, bf16 or fp32, with o also T; or fp8 e4m3fn,
// FlashAttention-3's fp8 forward, with o bf16), BSHD ([B, S, H, D]) or varlen ([T, H, D] with int32
// cu_seqlens_q and cu_seqlens_k [B+1], exactly when cu_seqlens_q is given), Hq a multiple of Hkv,
// D >= 1, an optional fp32 lse ([B, Hq, Sq] or [Hq, Tq]); scale (default 1/sqrt(D)), causal 0/1,
// window_left >= -1 (-1: unlimited). fp8 only: optional fp32 descales q_descale, k_descale and
// v_descale [B, Hkv] (one factor per batch entry and KV head; a missing one is 1), so that
// S = scale · (q·qd)(k·kd)ᵀ and O = softmax(S)·(v·vd).
#pragma once

#include <opcert/sdk/call_check.h>

#include <cmath>
#include <cstdint>
#include <optional>
#include <span>
#include <string>

namespace opcert::sdk {

/// The names an attention call is made of: the one spelling of its operands and attributes, which
/// the harness's op folder builds its cases with and the parser below reads.
namespace attention_names {
inline constexpr const char* kOp = "attention";
inline constexpr const char* kQ = "q";                      // input [B, Sq, Hq, D] or packed [Tq, Hq, D]
inline constexpr const char* kK = "k";                      // input [B, Skv, Hkv, D] or packed [Tk, Hkv, D]
inline constexpr const char* kV = "v";                      // input, k's shape
inline constexpr const char* kQDescale = "q_descale";       // optional input [B, Hkv], fp32 (fp8 only)
inline constexpr const char* kKDescale = "k_descale";       // optional input [B, Hkv], fp32 (fp8 only)
inline constexpr const char* kVDescale = "v_descale";       // optional input [B, Hkv], fp32 (fp8 only)
inline constexpr const char* kCuSeqlensQ = "cu_seqlens_q";  // optional input [B + 1], int32 (packed layout)
inline constexpr const char* kCuSeqlensK = "cu_seqlens_k";  // optional input [B + 1], int32 (packed layout)
inline constexpr const char* kO = "o";                      // output, q's shape
inline constexpr const char* kLse = "lse";                  // optional output [B, Hq, Sq] or [Hq, Tq], fp32
inline constexpr const char* kCausal = "causal";            // attribute
inline constexpr const char* kWindowLeft = "window_left";   // attribute
inline constexpr const char* kScale = "scale";              // attribute
}  // namespace attention_names

/// How q, k, v and o are laid out: [B, S, H, D], or packed sequences [T, H, D] with cu_seqlens.
enum class AttentionLayout { kBshd, kVarlen };

struct AttentionOperands {
  std::optional<Tensor> q{}, k{}, v{}, cu_seqlens_q{}, cu_seqlens_k{}, o{}, lse{};
  /// fp8 only, each optional: fp32 [B, Hkv] factors that dequantize q, k and v (the real values
  /// are code · factor); query head h uses the factor of its KV head, h / group(). Missing: 1.
  std::optional<Tensor> q_descale{}, k_descale{}, v_descale{};
  AttentionLayout layout = AttentionLayout::kBshd;
  int32_t dtype = OPCERT_DTYPE_INVALID;      // T, the dtype of q, k and v
  int32_t out_dtype = OPCERT_DTYPE_INVALID;  // o's dtype: T, or bf16 when T is fp8 e4m3fn
  int64_t batch = 0;                     // B (varlen: entries of cu_seqlens_q - 1)
  int64_t sq = 0, skv = 0;               // BSHD sequence lengths (0 for varlen)
  int64_t tq = 0, tk = 0;                // query and key tokens in all (BSHD: B·Sq, B·Skv)
  int64_t hq = 0, hkv = 0, d = 0;
  double scale = 1.0;        // the softmax scale; 1/sqrt(D) unless given
  bool causal = false;       // bottom-right aligned causal mask
  int64_t window_left = -1;  // keys this far left of the diagonal and no further; -1: unlimited

  bool varlen() const { return layout == AttentionLayout::kVarlen; }
  /// q, k and v are fp8 e4m3fn codes (FlashAttention-3's fp8 forward): o is bf16, descales apply.
  bool fp8() const { return dtype == OPCERT_DTYPE_F8_E4M3FN; }
  /// Query heads per key/value head: query head h reads key/value head h / group().
  int64_t group() const { return hq / hkv; }
};

namespace detail {

// The varlen inputs: both cu_seqlens or neither; records which one is missing.
inline void read_cu_seqlens(CallCheck& check, AttentionOperands& g) {
  g.cu_seqlens_q = check.input(attention_names::kCuSeqlensQ, false);
  g.cu_seqlens_k = check.input(attention_names::kCuSeqlensK, false);
  if (g.cu_seqlens_q.has_value() != g.cu_seqlens_k.has_value())
    check.require(false, g.cu_seqlens_q ? "missing input 'cu_seqlens_k' (varlen attention needs it with 'cu_seqlens_q')"
                                        : "input 'cu_seqlens_k' is given without 'cu_seqlens_q' (varlen needs both)");
  g.layout = g.cu_seqlens_q ? AttentionLayout::kVarlen : AttentionLayout::kBshd;
}

// Shapes once dtypes and ranks are right: the dims, then every operand against them.
inline void read_attention_dims(CallCheck& check, AttentionOperands& g) {
  const Tensor &q = *g.q, &k = *g.k;
  g.hq = q.dim(-2);
  g.hkv = k.dim(-2);
  g.d = q.dim(-1);
  if (g.varlen()) {
    const Tensor &cu_q = *g.cu_seqlens_q, &cu_k = *g.cu_seqlens_k;
    if (!check.rank(cu_q, 1, "[B+1]")) return;
    check.require(cu_q.dim(0) >= 1, "cu_seqlens_q has shape [0], expected [B+1] (at least one entry)");
    check.shape(cu_k, {cu_q.dim(0)}, "[B+1] (the shape of cu_seqlens_q)");
    g.batch = cu_q.dim(0) - 1;
    g.tq = q.dim(0);
    g.tk = k.dim(0);
    check.shape(k, {g.tk, g.hkv, g.d}, "[Tk, Hkv, D] (D of q)");
  } else {
    g.batch = q.dim(0);
    g.sq = q.dim(1);
    g.skv = k.dim(1);
    g.tq = g.batch * g.sq;
    g.tk = g.batch * g.skv;
    check.shape(k, {g.batch, g.skv, g.hkv, g.d}, "[B, Skv, Hkv, D] (B and D of q)");
  }
  check.shape(*g.v, {k.shape().begin(), k.shape().end()}, "the shape of k");
  check.shape(*g.o, {q.shape().begin(), q.shape().end()}, "the shape of q");
  check.require(g.d >= 1, "q has head dim D = 0, expected D >= 1");
  check.require(g.hkv >= 1 && g.hq % g.hkv == 0, "q has " + std::to_string(g.hq) + " heads and k " +
                                                     std::to_string(g.hkv) + ", expected Hq a multiple of Hkv (GQA/MQA)");
  for (const auto* descale : {&g.q_descale, &g.k_descale, &g.v_descale})
    if (*descale && check.ok()) check.shape(**descale, {g.batch, g.hkv}, "[B, Hkv] (one factor per batch entry and KV head)");
  if (g.lse && check.ok()) {
    if (g.varlen())
      check.shape(*g.lse, {g.hq, g.tq}, "[Hq, Tq]");
    else
      check.shape(*g.lse, {g.batch, g.hq, g.sq}, "[B, Hq, Sq]");
  }
}

// The dtypes: q, k, v in T; o in T, or bf16 for fp8 e4m3fn inputs, whose descales are fp32 and
// which are the only inputs that take descales.
inline void read_attention_dtypes(CallCheck& check, AttentionOperands& g) {
  check.require(g.q->dtype() != OPCERT_DTYPE_F8_E5M2,
                "q is fp8_e5m2, expected fp8_e4m3fn: fp8 attention takes e4m3 codes only (FlashAttention-3's format)");
  check.dtype(*g.q, {OPCERT_DTYPE_F16, OPCERT_DTYPE_BF16, OPCERT_DTYPE_F32, OPCERT_DTYPE_F8_E4M3FN});
  g.dtype = g.q->dtype();
  for (const auto& t : {g.k, g.v}) check.same_dtype(*t, *g.q);
  if (!check.ok()) return;
  if (g.fp8()) {
    g.out_dtype = OPCERT_DTYPE_BF16;
    check.require(g.o->dtype() == OPCERT_DTYPE_BF16, std::string("o is ") + dtype_name(g.o->dtype()) +
                                                         ", expected bf16 (fp8_e4m3fn attention writes bf16)");
  } else {
    g.out_dtype = g.dtype;
    check.same_dtype(*g.o, *g.q);
  }
  for (const auto* descale : {&g.q_descale, &g.k_descale, &g.v_descale}) {
    if (!*descale || !check.ok()) continue;
    const std::string name((*descale)->name());
    check.require(g.fp8(), "input '" + name + "' is given with " + dtype_name(g.dtype) +
                               " q, k, v; descales dequantize fp8_e4m3fn inputs only (leave it out)");
    check.dtype(**descale, {OPCERT_DTYPE_F32});
  }
}

}  // namespace detail

/// Reads and checks the call's operands; the first problem is recorded in `check` (whose `ok()`
/// says whether the operands are usable). The values of cu_seqlens are data: cu_seqlens_problem.
inline AttentionOperands parse_attention(const OpCall& call, CallCheck& check) {
  AttentionOperands g;
  check.only_attributes({attention_names::kCausal, attention_names::kWindowLeft, attention_names::kScale});
  g.q = check.input(attention_names::kQ);
  g.k = check.input(attention_names::kK);
  g.v = check.input(attention_names::kV);
  g.q_descale = check.input(attention_names::kQDescale, false);
  g.k_descale = check.input(attention_names::kKDescale, false);
  g.v_descale = check.input(attention_names::kVDescale, false);
  g.o = check.output(attention_names::kO);
  g.lse = check.output(attention_names::kLse, false);
  detail::read_cu_seqlens(check, g);
  g.causal = flag_attr(check, call, attention_names::kCausal, false);
  g.window_left = int_attr(check, call, attention_names::kWindowLeft, -1);
  check.require(g.window_left >= -1,
                "attribute 'window_left' must be -1 (unlimited) or more (got " + std::to_string(g.window_left) + ")");
  if (!check.ok()) return g;
  detail::read_attention_dtypes(check, g);
  if (g.lse) check.dtype(*g.lse, {OPCERT_DTYPE_F32});
  if (g.varlen()) {
    check.dtype(*g.cu_seqlens_q, {OPCERT_DTYPE_I32});
    check.dtype(*g.cu_seqlens_k, {OPCERT_DTYPE_I32});
  }
  if (!check.ok()) return g;
  const bool ranks = g.varlen() ? check.rank(*g.q, 3, "[Tq, Hq, D] when cu_seqlens_q is given") &&
                                    check.rank(*g.k, 3, "[Tk, Hkv, D] when cu_seqlens_q is given")
                                : check.rank(*g.q, 4, "[B, Sq, Hq, D]") && check.rank(*g.k, 4, "[B, Skv, Hkv, D]");
  if (!ranks) return g;
  detail::read_attention_dims(check, g);
  g.scale = float_attr(check, call, attention_names::kScale, g.d >= 1 ? 1.0 / std::sqrt(static_cast<double>(g.d)) : 1.0);
  return g;
}

/// What is wrong with the values of cu_seqlens_q and cu_seqlens_k of a varlen call that parsed
/// (host copies, batch + 1 entries each), "" when nothing: each must be non-decreasing from 0 to
/// the tokens of q (k). They are data, which a query cannot see: a backend asks in run wherever
/// it can read them, and throws the answer as INVALID_ARGUMENT.
inline std::string cu_seqlens_problem(const AttentionOperands& g, std::span<const int32_t> cu_q,
                                      std::span<const int32_t> cu_k) {
  const auto problem = [](const char* name, std::span<const int32_t> cu, int64_t tokens, const char* of) -> std::string {
    const std::string what(name);
    if (cu.empty() || cu.front() != 0)
      return what + " must start at 0 (got " + (cu.empty() ? std::string("no entry") : std::to_string(cu.front())) + ")";
    for (std::size_t b = 1; b < cu.size(); ++b)
      if (cu[b] < cu[b - 1])
        return what + " decreases at entry " + std::to_string(b) + " (" + std::to_string(cu[b - 1]) + " then " +
               std::to_string(cu[b]) + "), expected non-decreasing prefix sums";
    if (cu.back() != tokens)
      return what + " ends at " + std::to_string(cu.back()) + ", expected " + std::to_string(tokens) + " (the tokens of " +
             of + ")";
    return "";
  };
  const std::string q = problem("cu_seqlens_q", cu_q, g.tq, "q");
  return q.empty() ? problem("cu_seqlens_k", cu_k, g.tk, "k") : q;
}

}  // namespace opcert::sdk
