// Building blocks of the CPU backend's vectorised kernels (softmax, norms, rope, attention).
//
// OPCERT_CPU_CLONES compiles a kernel several times (AVX-512, AVX2+FMA, baseline x86-64) and
// picks one at load time through an ifunc: no per-call cost, a portable path everywhere else.
// Loops inside are written so that `#pragma omp simd` turns them into vector code; helpers
// called from them (exp_f32, the conversions) are plain inline arithmetic, no libm calls.
#pragma once

#include <opcert/backend_abi.h>
#include <opcert/sdk/error.h>

#include <bit>
#include <cstdint>
#include <limits>
#include <string>

#include "ops/cpu_vector_convert.h"

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && defined(__linux__)
#define OPCERT_CPU_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define OPCERT_CPU_CLONES
#endif

namespace opcert::cpu::vec {

inline constexpr float kInf = std::numeric_limits<float>::infinity();
inline constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

/// e^x in fp32, within about 1 ulp; exp(-inf) = 0, exp(NaN) = NaN, overflow gives +inf and
/// results below the normal range are correctly rounded subnormals or 0.
inline float exp_f32(float x) {
  x = x < -110.0f ? -110.0f : x;  // -inf and below: e^x rounds to 0 anyway; NaN passes
  x = x > 89.0f ? 89.0f : x;      // beyond fp32 range: still overflows to +inf below
  // n = round(x / ln 2) with the 1.5*2^23 trick (round to nearest even, no int conversion).
  constexpr float kShift = 12582912.0f;
  const float shifted = x * 1.44269504088896341f + kShift;
  const float n = shifted - kShift;
  const int32_t ni = static_cast<int32_t>(std::bit_cast<uint32_t>(shifted) - std::bit_cast<uint32_t>(kShift));
  // r = x - n ln2 in two parts (Cody-Waite) so that r is exact to fp32 precision.
  const float r = (x - n * 0.693359375f) - n * -2.12194440e-4f;
  // Taylor series of degree 7 on |r| <= ln2/2: truncation below 0.1 ulp.
  float p = 1.0f / 5040.0f;
  p = p * r + 1.0f / 720.0f;
  p = p * r + 1.0f / 120.0f;
  p = p * r + 1.0f / 24.0f;
  p = p * r + 1.0f / 6.0f;
  p = p * r + 0.5f;
  p = p * r + 1.0f;
  p = p * r + 1.0f;
  // 2^n as two normal powers of two, so subnormal results round once and overflow gives inf.
  const int32_t n1 = ni >> 1;
  const int32_t n2 = ni - n1;
  const float s1 = std::bit_cast<float>(static_cast<uint32_t>(n1 + 127) << 23);
  const float s2 = std::bit_cast<float>(static_cast<uint32_t>(n2 + 127) << 23);
  return p * s1 * s2;
}

/// Long fp32 sums are taken in chunks of this many elements (vectorised within a chunk, chunk
/// totals added after), so the rounding error grows with chunk/lanes + n/chunk, not n/lanes.
inline constexpr int64_t kSumChunk = 256;

/// max that propagates NaN (the first NaN seen wins), unlike std::max.
inline float max_nan(float a, float b) { return (a > b || a != a) ? a : b; }

/// Calls fn(T{}) with T the storage type of a float dtype (fp32, fp16, bf16).
template <class Fn>
void with_float_type(int32_t dtype, Fn&& fn) {
  switch (dtype) {
    case OPCERT_DTYPE_F32: fn(float{}); return;
    case OPCERT_DTYPE_F16: fn(fp16{}); return;
    case OPCERT_DTYPE_BF16: fn(bf16{}); return;
    default:
      throw sdk::Error(OPCERT_ERROR_UNSUPPORTED, "dtype " + std::to_string(dtype) + " is not fp32, fp16 or bf16");
  }
}

}  // namespace opcert::cpu::vec
