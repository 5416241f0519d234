// cpu.rope.rowwise: rotary position embedding, out of place (docs/OPS.md "rope").
// Each token's head vectors are rotated by one vectorised kernel call; OpenMP over tokens.
#include <omp.h>

#include <optional>
#include <string>
#include <vector>

#include "ops/cpu_ops.h"
#include "ops/cpu_vector.h"
#include "ops/cpu_vector_operands.h"

namespace opcert::cpu {
namespace {

using namespace vec;

/// The operands of one call, checked against the contract.
struct RopeCall {
  sdk::Tensor q, q_out, cos, sin;
  std::optional<sdk::Tensor> k, k_out, positions;
  int64_t tokens = 0;       // B*S or T
  int64_t seq_len = 0;      // S (BSHD) or T: the implicit position is token % seq_len
  int64_t head_dim = 0;     // D
  int64_t rotary_dim = 0;   // R
  int64_t table_rows = 0;   // P
  bool interleaved = false;
};

void check_heads_tensor(const sdk::Tensor& t, const sdk::Tensor& q) {
  require_dense(t);
  require(t.ndim() == q.ndim(), "rope operand '" + std::string(t.name()) + "' has shape " + shape_string(t) +
                                    " but 'q' has rank " + std::to_string(q.ndim()));
  bool ok = t.dim(-1) == q.dim(-1) && t.dtype() == q.dtype();
  for (int32_t i = 0; i + 2 < q.ndim(); ++i) ok = ok && t.dim(i) == q.dim(i);
  require(ok, "rope operand '" + std::string(t.name()) + "' (" + dtype_name(t.dtype()) + " " + shape_string(t) +
                  ") does not match 'q' (" + dtype_name(q.dtype()) + " " + shape_string(q) +
                  ") in dtype, tokens or head dim");
}

RopeCall check_rope(const sdk::OpCall& call) {
  RopeCall r{call.input("q"), call.output("q_out"), call.input("cos"), call.input("sin")};
  require_dense(r.q);
  require(r.q.ndim() == 3 || r.q.ndim() == 4, "rope input 'q' must be [B, S, H, D] or [T, H, D], got " + shape_string(r.q));
  require_like(r.q_out, r.q);
  r.k = call.find_input("k");
  r.k_out = call.find_output("k_out");
  require(r.k.has_value() == r.k_out.has_value(), "output 'k_out' is required exactly when input 'k' is given");
  if (r.k) {
    check_heads_tensor(*r.k, r.q);
    require_like(*r.k_out, *r.k);
  }
  r.head_dim = r.q.dim(-1);
  r.tokens = r.q.ndim() == 4 ? r.q.dim(0) * r.q.dim(1) : r.q.dim(0);
  r.seq_len = r.q.ndim() == 4 ? r.q.dim(1) : r.q.dim(0);
  r.rotary_dim = call.get_int("rotary_dim", r.head_dim);
  require(r.rotary_dim >= 0 && r.rotary_dim <= r.head_dim && r.rotary_dim % 2 == 0,
          "rotary_dim " + std::to_string(r.rotary_dim) + " must be even and at most the head dim " +
              std::to_string(r.head_dim));
  const std::string style = call.get_string("style", "split_half");
  require(style == "split_half" || style == "interleaved",
          "rope style '" + style + "' is neither 'split_half' nor 'interleaved'");
  r.interleaved = style == "interleaved";
  for (const sdk::Tensor* table : {&r.cos, &r.sin}) {
    require_dense(*table);
    require(table->dtype() == OPCERT_DTYPE_F32, "rope input '" + std::string(table->name()) + "' must be fp32, got " +
                                                    dtype_name(table->dtype()));
    require(table->ndim() == 2 && table->dim(1) == r.rotary_dim / 2,
            "rope input '" + std::string(table->name()) + "' has shape " + shape_string(*table) + ", expected [P, " +
                std::to_string(r.rotary_dim / 2) + "]");
  }
  require(r.cos.dim(0) == r.sin.dim(0), "rope inputs 'cos' and 'sin' have different row counts");
  r.table_rows = r.cos.dim(0);
  r.positions = call.find_input("positions");
  if (r.positions) {
    require_dense(*r.positions);
    require(r.positions->dtype() == OPCERT_DTYPE_I32, "rope input 'positions' must be int32");
    bool ok = r.positions->ndim() == r.q.ndim() - 2;
    for (int32_t i = 0; ok && i + 2 < r.q.ndim(); ++i) ok = r.positions->dim(i) == r.q.dim(i);
    require(ok, "rope input 'positions' has shape " + shape_string(*r.positions) + ", expected the token dims of 'q' " +
                    shape_string(r.q));
  } else {
    require(r.tokens == 0 || r.seq_len <= r.table_rows,
            "rope without 'positions' needs cos/sin rows for positions 0.." + std::to_string(r.seq_len - 1) + ", got " +
                std::to_string(r.table_rows));
  }
  return r;
}

/// Rotates `heads` head vectors of one token (row stride d) from `in` into `out`.
template <class T>
OPCERT_CPU_CLONES void rope_token(const T* in, T* out, int64_t heads, int64_t d, int64_t half, const float* cos_row,
                                  const float* sin_row, bool interleaved) {
  for (int64_t h = 0; h < heads; ++h) {
    const T* x = in + h * d;
    T* y = out + h * d;
    if (interleaved) {
#pragma omp simd
      for (int64_t i = 0; i < half; ++i) {
        const float x1 = to_f32(x[2 * i]);
        const float x2 = to_f32(x[2 * i + 1]);
        y[2 * i] = from_f32<T>(x1 * cos_row[i] - x2 * sin_row[i]);
        y[2 * i + 1] = from_f32<T>(x2 * cos_row[i] + x1 * sin_row[i]);
      }
    } else {
#pragma omp simd
      for (int64_t i = 0; i < half; ++i) {
        const float x1 = to_f32(x[i]);
        const float x2 = to_f32(x[i + half]);
        y[i] = from_f32<T>(x1 * cos_row[i] - x2 * sin_row[i]);
        y[i + half] = from_f32<T>(x2 * cos_row[i] + x1 * sin_row[i]);
      }
    }
    for (int64_t i = 2 * half; i < d; ++i) y[i] = x[i];
  }
}

template <class T>
void rope_tensor(const RopeCall& r, const sdk::Tensor& in, const sdk::Tensor& out) {
  const int64_t heads = in.dim(-2);
  const int64_t d = r.head_dim;
  const int64_t half = r.rotary_dim / 2;
  const int32_t* pos = r.positions ? r.positions->data<const int32_t>() : nullptr;
  const float* cos_table = r.cos.data<const float>();
  const float* sin_table = r.sin.data<const float>();
  const T* x = in.data<const T>();
  T* y = out.data<T>();
  const bool parallel = r.tokens > 1 && r.tokens * heads * d >= (1 << 14);
#pragma omp parallel for schedule(static) if (parallel)
  for (int64_t t = 0; t < r.tokens; ++t) {
    const int64_t p = pos ? pos[t] : t % r.seq_len;
    rope_token<T>(x + t * heads * d, y + t * heads * d, heads, d, half, cos_table + p * half, sin_table + p * half,
                  r.interleaved);
  }
}

/// Positions come from data, so they are checked here, before anything is written.
void check_positions(const RopeCall& r) {
  if (!r.positions) return;
  const int32_t* pos = r.positions->data<const int32_t>();
  for (int64_t t = 0; t < r.tokens; ++t)
    require(pos[t] >= 0 && pos[t] < r.table_rows, "rope position " + std::to_string(pos[t]) + " at token " +
                                                      std::to_string(t) + " is outside [0, " +
                                                      std::to_string(r.table_rows) + ")");
}

sdk::Support query_rope(const sdk::OpCall& call) {
  const sdk::Support dtype = float_dtype_support(call.input("q"));
  if (!dtype.supported) return dtype;
  check_rope(call);
  return sdk::Support::yes();
}

void run_rope(const sdk::OpCall& call) {
  const RopeCall r = check_rope(call);
  check_positions(r);
  with_float_type(r.q.dtype(), [&](auto tag) {
    using T = decltype(tag);
    rope_tensor<T>(r, r.q, r.q_out);
    if (r.k) rope_tensor<T>(r, *r.k, *r.k_out);
  });
}

}  // namespace

std::vector<sdk::Implementation> rope_implementations() {
  sdk::Implementation impl;
  impl.key = "cpu.rope.rowwise";
  impl.op = "rope";
  impl.description = "rotary embedding (split_half or interleaved, partial rotary dim, positions), OpenMP over tokens";
  impl.query = query_rope;
  impl.run = run_rope;
  return {impl};
}

}  // namespace opcert::cpu
