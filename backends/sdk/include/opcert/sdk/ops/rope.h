// The operands of a rope call (docs/OPS.md "rope"), checked against the contract once for every
// backend: q [B, S, Hq, D] or [T, Hq, D] in fp32, fp16 or bf16; an optional k of q's token dims and
// D with its own head count; fp32 cos and sin [P, R/2]; optional int32 positions of q's token dims;
// q_out as q, k_out as k exactly when k is given; style "split_half" or "interleaved"; rotary_dim R
// even in [0, D] (default D). Without positions every implicit position (0 .. S-1) must be a row
// of the tables.
#pragma once

#include <opcert/sdk/call_check.h>

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace opcert::sdk {

/// The names a rope call is made of: the one spelling of its operands and attributes, which
/// the harness's op folder builds its cases with and the parser below reads.
namespace rope_names {
inline constexpr const char* kOp = "rope";
inline constexpr const char* kQ = "q";                   // input [B, S, Hq, D] or [T, Hq, D]
inline constexpr const char* kK = "k";                   // optional input, q's layout with Hk heads
inline constexpr const char* kCos = "cos";               // input [max_position, rotary_dim / 2], fp32
inline constexpr const char* kSin = "sin";               // input [max_position, rotary_dim / 2], fp32
inline constexpr const char* kPositions = "positions";   // optional input, int32, q's leading dimensions
inline constexpr const char* kQOut = "q_out";            // output, q's shape
inline constexpr const char* kKOut = "k_out";            // output, k's shape, exactly when k is given
inline constexpr const char* kStyle = "style";           // attribute
inline constexpr const char* kRotaryDim = "rotary_dim";  // attribute
}  // namespace rope_names

/// Which elements form a rotated pair (attribute `style`): (i, i + R/2), GPT-NeoX and Llama; or
/// (2i, 2i + 1), GPT-J.
enum class RopeStyle { kSplitHalf, kInterleaved };

struct RopeOperands {
  std::optional<Tensor> q{}, k{}, cos{}, sin{}, positions{}, q_out{}, k_out{};
  RopeStyle style = RopeStyle::kSplitHalf;
  int32_t dtype = OPCERT_DTYPE_INVALID;  // of q, k, q_out and k_out
  int64_t tokens = 0;      // B·S, or T
  int64_t seq_len = 0;     // S, or T: without positions a token's position is its index modulo this
  int64_t hq = 0, hk = 0;  // heads of q and of k (0 without k)
  int64_t head_dim = 0;    // D
  int64_t rotary_dim = 0;  // R: elements [R, D) are copied unchanged
  int64_t table_rows = 0;  // P, the positions cos and sin cover

  /// R/2: the rotated pairs of a head vector, and the columns of cos and sin.
  int64_t half() const { return rotary_dim / 2; }
};

namespace detail {

// k and k_out beside q: q's token dims and head dim, k's own head count, q's dtype.
inline void read_rope_k(CallCheck& check, RopeOperands& r) {
  const Tensor& q = *r.q;
  const Tensor& k = *r.k;
  if (!check.rank(k, q.ndim(), q.ndim() == 4 ? "[B, S, Hk, D] (as q)" : "[T, Hk, D] (as q)")) return;
  std::vector<int64_t> expected(q.shape().begin(), q.shape().end());
  expected[expected.size() - 2] = k.dim(-2);
  check.shape(k, expected, "q's token dims and head dim");
  check.same_dtype(k, q);
  check.like(*r.k_out, k);
  r.hk = k.dim(-2);
}

// cos, sin and positions against R and q's token dims.
inline void read_rope_tables(CallCheck& check, RopeOperands& r) {
  for (const Tensor* table : {&*r.cos, &*r.sin}) {
    check.dtype(*table, {OPCERT_DTYPE_F32});
    if (check.rank(*table, 2, "[P, R/2]"))
      check.shape(*table, {table->dim(0), r.half()}, "[P, R/2] with R = " + std::to_string(r.rotary_dim));
  }
  if (!check.ok()) return;
  check.shape(*r.sin, {r.cos->dim(0), r.half()}, "the shape of cos");
  r.table_rows = r.cos->dim(0);
  const std::vector<int64_t> token_dims(r.q->shape().begin(), r.q->shape().end() - 2);
  if (r.positions) {
    check.dtype(*r.positions, {OPCERT_DTYPE_I32});
    check.shape(*r.positions, token_dims, "the token dims of q");
  } else {
    check.require(r.tokens == 0 || r.seq_len <= r.table_rows,
                  "cos and sin have " + std::to_string(r.table_rows) + " rows, expected at least " +
                      std::to_string(r.seq_len) + " for the implicit positions 0.." + std::to_string(r.seq_len - 1) +
                      " (no input 'positions')");
  }
}

}  // namespace detail

/// Reads and checks the call's operands; the first problem is recorded in `check` (whose `ok()`
/// says whether the operands are usable). Given positions are data: rope_positions_problem.
inline RopeOperands parse_rope(const OpCall& call, CallCheck& check) {
  RopeOperands r;
  check.only_attributes({rope_names::kStyle, rope_names::kRotaryDim});
  r.q = check.input(rope_names::kQ);
  r.k = check.input(rope_names::kK, false);
  r.cos = check.input(rope_names::kCos);
  r.sin = check.input(rope_names::kSin);
  r.positions = check.input(rope_names::kPositions, false);
  r.q_out = check.output(rope_names::kQOut);
  r.k_out = check.output(rope_names::kKOut, false);
  if (r.k.has_value() != r.k_out.has_value())
    check.require(false, r.k ? "missing output 'k_out' (required with input 'k')" : "output 'k_out' is given without input 'k'");
  r.style = enum_attr(check, call, rope_names::kStyle, RopeStyle::kSplitHalf,
                      {{"split_half", RopeStyle::kSplitHalf}, {"interleaved", RopeStyle::kInterleaved}});
  if (!check.ok()) return r;
  check.dtype(*r.q, {OPCERT_DTYPE_F32, OPCERT_DTYPE_F16, OPCERT_DTYPE_BF16});
  r.dtype = r.q->dtype();
  if (!check.ok()) return r;
  const int32_t rank = r.q->ndim();
  check.require(rank == 3 || rank == 4, "q must be 4-D [B, S, Hq, D] or 3-D [T, Hq, D] (got " + shape_string(*r.q) + ")");
  if (!check.ok()) return r;
  check.like(*r.q_out, *r.q);
  r.head_dim = r.q->dim(-1);
  r.hq = r.q->dim(-2);
  r.tokens = rank == 4 ? r.q->dim(0) * r.q->dim(1) : r.q->dim(0);
  r.seq_len = rank == 4 ? r.q->dim(1) : r.q->dim(0);
  if (r.k) detail::read_rope_k(check, r);
  r.rotary_dim = int_attr(check, call, rope_names::kRotaryDim, r.head_dim);
  check.require(r.rotary_dim >= 0 && r.rotary_dim <= r.head_dim && r.rotary_dim % 2 == 0,
                "attribute 'rotary_dim' must be even and in [0, D] = [0, " + std::to_string(r.head_dim) + "] (got " +
                    std::to_string(r.rotary_dim) + ")");
  if (!check.ok()) return r;
  detail::read_rope_tables(check, r);
  return r;
}

/// What is wrong with given positions (a host copy, one per token), "" when nothing: every one
/// must be a row of the tables, in [0, P). They are data, which a query cannot see: a backend asks
/// in run wherever it can read them, and throws the answer as INVALID_ARGUMENT.
inline std::string rope_positions_problem(const RopeOperands& r, std::span<const int32_t> positions) {
  for (std::size_t t = 0; t < positions.size(); ++t)
    if (positions[t] < 0 || positions[t] >= r.table_rows)
      return "positions[" + std::to_string(t) + "] = " + std::to_string(positions[t]) + " is outside [0, P) = [0, " +
             std::to_string(r.table_rows) + ")";
  return "";
}

}  // namespace opcert::sdk
