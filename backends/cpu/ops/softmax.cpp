// cpu.softmax.rowwise: softmax over the last dimension (docs/OPS.md "softmax"; operands read by
// the SDK's parse_softmax). One row per iteration of an OpenMP loop; within a row three
// vectorised passes (max, exp and sum, scale) over data that stays in cache, fp32 math throughout.
#include <omp.h>
#include <opcert/sdk/checked_implementation.h>
#include <opcert/sdk/ops/softmax.h>

#include <type_traits>
#include <vector>

#include "cpu_implementations.h"
#include "ops/cpu_vector.h"

namespace opcert::cpu {
namespace {

using namespace vec;

struct Rows {
  int64_t count = 0;   // product of the leading dimensions
  int64_t length = 0;  // N, the last dimension
};

/// One row: y = exp(x - max) / sum, or NaN everywhere when the row holds a NaN or +inf or is
/// all -inf (torch's answer). `scratch` holds n floats (unused for fp32).
template <class T>
OPCERT_CPU_CLONES void softmax_row(const T* x, T* y, float* scratch, int64_t n) {
  const float* src = nullptr;
  float* e = nullptr;
  if constexpr (std::is_same_v<T, float>) {
    src = x;
    e = y;
  } else {
#pragma omp simd
    for (int64_t i = 0; i < n; ++i) scratch[i] = to_f32(x[i]);
    src = scratch;
    e = scratch;
  }
  float m = -kInf;
  int nan = 0;
#pragma omp simd reduction(max : m) reduction(| : nan)
  for (int64_t i = 0; i < n; ++i) {
    const float v = src[i];
    m = v > m ? v : m;
    nan |= (v != v) ? 1 : 0;
  }
  if (nan != 0 || m == kInf || m == -kInf) {
    const T q = from_f32<T>(kNaN);
    for (int64_t i = 0; i < n; ++i) y[i] = q;
    return;
  }
  float sum = 0.0f;
  for (int64_t c0 = 0; c0 < n; c0 += kSumChunk) {
    const int64_t c1 = c0 + kSumChunk < n ? c0 + kSumChunk : n;
    float part = 0.0f;
#pragma omp simd reduction(+ : part)
    for (int64_t i = c0; i < c1; ++i) {
      const float ev = exp_f32(src[i] - m);
      e[i] = ev;
      part += ev;
    }
    sum += part;
  }
#pragma omp simd
  for (int64_t i = 0; i < n; ++i) y[i] = from_f32<T>(e[i] / sum);
}

template <class T>
void softmax_rows(const T* x, T* y, Rows rows) {
  const bool is_fp32 = std::is_same_v<T, float>;
  const bool parallel = rows.count > 1 && rows.count * rows.length >= (1 << 15);
  const int threads = parallel ? omp_get_max_threads() : 1;
  std::vector<float> scratch(is_fp32 ? 0 : static_cast<std::size_t>(threads) * rows.length);
#pragma omp parallel for schedule(static) if (parallel) num_threads(threads)
  for (int64_t r = 0; r < rows.count; ++r) {
    float* mine = is_fp32 ? nullptr : scratch.data() + static_cast<std::size_t>(omp_get_thread_num()) * rows.length;
    softmax_row<T>(x + r * rows.length, y + r * rows.length, mine, rows.length);
  }
}

void compute(const sdk::SoftmaxOperands& s) {
  with_float_type(s.dtype, [&](auto tag) {
    using T = decltype(tag);
    softmax_rows<T>(s.x->data<const T>(), s.y->data<T>(), Rows{s.rows, s.n});
  });
}

std::vector<sdk::Implementation> softmax_implementations() {
  return {sdk::checked_implementation(
      {"cpu.softmax.rowwise", "softmax", "row-wise softmax over the last dimension, fp32 math, OpenMP over rows"},
      sdk::parse_softmax, compute)};
}

}  // namespace

OPCERT_REGISTER_IMPLEMENTATIONS(CpuImplementations, "softmax", softmax_implementations)

}  // namespace opcert::cpu
