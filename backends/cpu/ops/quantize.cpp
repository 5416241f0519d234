// quantize (docs/OPS.md; operands read by the SDK's parse_quantize): dynamic per-token or
// per-tensor quantization to int8 / fp8, as vLLM's scaled_int8_quant / scaled_fp8_quant. In fp32:
// amax = max |x|, scale = amax / qmax, q = round_q(clamp(x / scale, -qmax, qmax)) (a true
// division, no reciprocal); amax 0 gives scale 0 and q 0. OpenMP over rows.
#include <omp.h>
#include <opcert/sdk/checked_implementation.h>
#include <opcert/sdk/ops/quantize.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "cpu_implementations.h"
#include "ops/cpu_numeric.h"

namespace opcert::cpu {
namespace {

constexpr int64_t kChunk = 1024;              // elements decoded to fp32 at a time
constexpr int64_t kParallelElements = 1 << 15;  // below this, one thread

// max |x| over elements [begin, begin + count), in fp32.
float amax_of(int32_t dtype, const void* x, int64_t begin, int64_t count) {
  float buf[kChunk];
  float amax = 0.0f;
  for (int64_t i0 = 0; i0 < count; i0 += kChunk) {
    const int64_t len = std::min(kChunk, count - i0);
    load_f32_run(dtype, x, begin + i0, buf, len);
    for (int64_t i = 0; i < len; ++i) amax = std::max(amax, std::fabs(buf[i]));
  }
  return amax;
}

// Quantizes elements [begin, begin + count) of x with `scale` into q.
void quantize_run(int32_t x_dtype, const void* x, int32_t q_dtype, void* q, int64_t begin, int64_t count, float scale) {
  const float qmax = sdk::quantize_qmax(q_dtype);
  float buf[kChunk];
  for (int64_t i0 = 0; i0 < count; i0 += kChunk) {
    const int64_t len = std::min(kChunk, count - i0);
    if (scale == 0.0f) {
      std::fill(buf, buf + len, 0.0f);
    } else {
      load_f32_run(x_dtype, x, begin + i0, buf, len);
      for (int64_t i = 0; i < len; ++i) buf[i] = std::clamp(buf[i] / scale, -qmax, qmax);
    }
    if (q_dtype == OPCERT_DTYPE_I8) {
      auto* out = static_cast<int8_t*>(q) + begin + i0;
      for (int64_t i = 0; i < len; ++i) out[i] = static_cast<int8_t>(std::nearbyint(buf[i]));  // half to even
    } else {
      store_f32_run(q_dtype, q, begin + i0, buf, len);
    }
  }
}

void compute(const sdk::QuantizeOperands& g) {
  const int32_t x_dtype = g.x->dtype(), q_dtype = g.q->dtype();
  const void* x = g.x->data();
  void* q = g.q->data();
  float* scales = g.scale->data<float>();
  const float qmax = sdk::quantize_qmax(q_dtype);
  const int64_t m = g.m, k = g.k;
  const bool parallel = m * k >= kParallelElements;

  if (g.granularity == sdk::QuantGranularity::kTensor) {
    float amax = 0.0f;
#pragma omp parallel for reduction(max : amax) schedule(static) if (parallel)
    for (int64_t r = 0; r < m; ++r) amax = std::max(amax, amax_of(x_dtype, x, r * k, k));
    const float scale = amax == 0.0f ? 0.0f : amax / qmax;
    scales[0] = scale;
#pragma omp parallel for schedule(static) if (parallel)
    for (int64_t r = 0; r < m; ++r) quantize_run(x_dtype, x, q_dtype, q, r * k, k, scale);
    return;
  }
#pragma omp parallel for schedule(static) if (parallel)
  for (int64_t r = 0; r < m; ++r) {
    const float amax = amax_of(x_dtype, x, r * k, k);
    const float scale = amax == 0.0f ? 0.0f : amax / qmax;
    scales[r] = scale;
    quantize_run(x_dtype, x, q_dtype, q, r * k, k, scale);
  }
}

std::vector<sdk::Implementation> quantize_implementations() {
  return {sdk::checked_implementation(
      {"cpu.quantize.rowwise", "quantize", "dynamic per-token / per-tensor quantization to int8 or fp8 (fp32 amax, true division)"},
      sdk::parse_quantize, compute)};
}

}  // namespace

OPCERT_REGISTER_IMPLEMENTATIONS(CpuImplementations, "quantize", quantize_implementations)

}  // namespace opcert::cpu
