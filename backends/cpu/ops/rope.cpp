// cpu.rope.rowwise: rotary position embedding, out of place (docs/OPS.md "rope"; operands read by
// the SDK's parse_rope). Each token's head vectors are rotated by one vectorised kernel call;
// OpenMP over tokens.
#include <omp.h>
#include <opcert/sdk/checked_implementation.h>
#include <opcert/sdk/ops/rope.h>

#include <span>
#include <string>

#include "cpu_implementations.h"
#include "ops/cpu_vector.h"

namespace opcert::cpu {
namespace {

using namespace vec;

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
void rope_tensor(const sdk::RopeOperands& r, const sdk::Tensor& in, const sdk::Tensor& out) {
  const int64_t heads = in.dim(-2);
  const int64_t d = r.head_dim;
  const int64_t half = r.half();
  const int32_t* pos = r.positions ? r.positions->data<const int32_t>() : nullptr;
  const float* cos_table = r.cos->data<const float>();
  const float* sin_table = r.sin->data<const float>();
  const T* x = in.data<const T>();
  T* y = out.data<T>();
  const bool parallel = r.tokens > 1 && r.tokens * heads * d >= (1 << 14);
#pragma omp parallel for schedule(static) if (parallel)
  for (int64_t t = 0; t < r.tokens; ++t) {
    const int64_t p = pos ? pos[t] : t % r.seq_len;
    rope_token<T>(x + t * heads * d, y + t * heads * d, heads, d, half, cos_table + p * half, sin_table + p * half,
                  r.style == sdk::RopeStyle::kInterleaved);
  }
}

void compute(const sdk::RopeOperands& r) {
  // Given positions are data: checked here, before anything is written.
  if (r.positions) {
    const std::span<const int32_t> positions(r.positions->data<const int32_t>(), static_cast<std::size_t>(r.tokens));
    if (const std::string why = sdk::rope_positions_problem(r, positions); !why.empty())
      throw sdk::Error(OPCERT_ERROR_INVALID_ARGUMENT, why);
  }
  with_float_type(r.dtype, [&](auto tag) {
    using T = decltype(tag);
    rope_tensor<T>(r, *r.q, *r.q_out);
    if (r.k) rope_tensor<T>(r, *r.k, *r.k_out);
  });
}

std::vector<sdk::Implementation> rope_implementations() {
  return {sdk::checked_implementation(
      {"cpu.rope.rowwise", "rope",
       "rotary embedding (split_half or interleaved, partial rotary dim, positions), OpenMP over tokens"},
      sdk::parse_rope, compute)};
}

}  // namespace

OPCERT_REGISTER_IMPLEMENTATIONS(CpuImplementations, "rope", rope_implementations)

}  // namespace opcert::cpu
