// Row kernels of cpu.rms_norm.fused and cpu.layer_norm.fused (docs/OPS.md "rms_norm",
// "layer_norm"): one token row in, its normalised row out, fp32 math, vectorised loops.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <type_traits>

#include "ops/cpu_vector.h"

namespace opcert::cpu::norm {

/// Pointers of one row; weight, bias, residual and residual_out may be null.
template <class T>
struct Row {
  const T* x = nullptr;
  const T* residual = nullptr;
  const T* weight = nullptr;
  const T* bias = nullptr;
  T* y = nullptr;
  T* residual_out = nullptr;
};

/// The row to normalise, in fp32: round(x + residual) (also written to residual_out) or x.
/// Points straight at x for an fp32 row without residual; otherwise fills scratch.
template <class T>
inline const float* fp32_input(const Row<T>& row, float* scratch, int64_t n) {
  if (row.residual != nullptr) {
#pragma omp simd
    for (int64_t i = 0; i < n; ++i) {
      const T r = vec::from_f32<T>(vec::to_f32(row.x[i]) + vec::to_f32(row.residual[i]));
      row.residual_out[i] = r;
      scratch[i] = vec::to_f32(r);
    }
    return scratch;
  }
  if constexpr (std::is_same_v<T, float>) {
    return row.x;
  } else {
#pragma omp simd
    for (int64_t i = 0; i < n; ++i) scratch[i] = vec::to_f32(row.x[i]);
    return scratch;
  }
}

/// y = round(r * inv_scale * weight + bias) with r - shift as the centred input.
template <class T>
inline void write_output(const Row<T>& row, const float* r, float shift, float inv_scale, int64_t n) {
  const T* w = row.weight;
  const T* b = row.bias;
  if (w != nullptr && b != nullptr) {
#pragma omp simd
    for (int64_t i = 0; i < n; ++i)
      row.y[i] = vec::from_f32<T>((r[i] - shift) * inv_scale * vec::to_f32(w[i]) + vec::to_f32(b[i]));
  } else if (w != nullptr) {
#pragma omp simd
    for (int64_t i = 0; i < n; ++i) row.y[i] = vec::from_f32<T>((r[i] - shift) * inv_scale * vec::to_f32(w[i]));
  } else if (b != nullptr) {
#pragma omp simd
    for (int64_t i = 0; i < n; ++i) row.y[i] = vec::from_f32<T>((r[i] - shift) * inv_scale + vec::to_f32(b[i]));
  } else {
#pragma omp simd
    for (int64_t i = 0; i < n; ++i) row.y[i] = vec::from_f32<T>((r[i] - shift) * inv_scale);
  }
}

/// Sum of f(r[i]) in fp32, vectorised, in chunks of vec::kSumChunk (see there).
template <class F>
__attribute__((always_inline)) inline float chunked_sum(const float* r, int64_t n, F f) {
  float total = 0.0f;
  for (int64_t c0 = 0; c0 < n; c0 += vec::kSumChunk) {
    const int64_t c1 = std::min(c0 + vec::kSumChunk, n);
    float part = 0.0f;
#pragma omp simd reduction(+ : part)
    for (int64_t i = c0; i < c1; ++i) part += f(r[i]);
    total += part;
  }
  return total;
}

/// rms_norm of one row of n > 0 elements; scratch holds n floats.
template <class T>
OPCERT_CPU_CLONES void rms_norm_row(Row<T> row, float* scratch, int64_t n, float eps) {
  const float* r = fp32_input(row, scratch, n);
  const float sum_sq = chunked_sum(r, n, [](float v) { return v * v; });
  const float inv_rms = 1.0f / std::sqrt(sum_sq / static_cast<float>(n) + eps);
  write_output(row, r, 0.0f, inv_rms, n);
}

/// layer_norm of one row of n > 0 elements (two passes: mean, then biased variance about it).
template <class T>
OPCERT_CPU_CLONES void layer_norm_row(Row<T> row, float* scratch, int64_t n, float eps) {
  const float* r = fp32_input(row, scratch, n);
  const float mean = chunked_sum(r, n, [](float v) { return v; }) / static_cast<float>(n);
  const float sum_sq = chunked_sum(r, n, [mean](float v) { return (v - mean) * (v - mean); });
  const float inv_std = 1.0f / std::sqrt(sum_sq / static_cast<float>(n) + eps);
  write_output(row, r, mean, inv_std, n);
}

}  // namespace opcert::cpu::norm
