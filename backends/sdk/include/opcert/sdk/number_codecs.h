// The storage dtypes' conversions from and to fp32, as docs/OPS.md ("Conventions") defines them,
// to the bit: round to nearest even; fp16, bf16 and fp8 e5m2 overflow to infinity; fp8 e4m3fn
// saturates to +-448 (it has no infinity); NaN encodes as each format's positive quiet NaN (0x7E00
// fp16, 0x7FC0 bf16, 0x7F e4m3fn, 0x7E e5m2); int8 rounds half to even and saturates. Decoding is
// exact. Header-only, C++20, no dependency but the ABI header. The harness checks these against
// its own, independent codec for every 8- and 16-bit pattern and every rounding boundary
// (tests/sdk/number_codecs_test.cpp).
//
// Portable code: include it from translation units compiled without ISA flags (-mavx512f, ...),
// or the linker may keep that unit's copy of an inline function for every caller.
#pragma once

#include <opcert/backend_abi.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>

namespace opcert::sdk {

/// fp32 <-> bf16: bf16 is the top half of an fp32, rounded to nearest even.
inline float bf16_to_f32(uint16_t bits) { return std::bit_cast<float>(static_cast<uint32_t>(bits) << 16); }

inline uint16_t f32_to_bf16(float value) {
  const uint32_t u = std::bit_cast<uint32_t>(value);
  if ((u & 0x7FFFFFFFu) > 0x7F800000u) return 0x7FC0;  // NaN
  const uint32_t rounded = u + 0x7FFFu + ((u >> 16) & 1u);
  return static_cast<uint16_t>(rounded >> 16);
}

/// A small binary float format: `E` exponent bits, `M` mantissa bits, bias 2^(E-1)-1.
/// `kIeee`: the top exponent holds inf/NaN (fp16, e5m2); otherwise only S.1..1.1..1 is NaN and
/// overflow saturates (e4m3fn).
template <int E, int M, bool kIeee>
struct MiniFloat {
  static constexpr int kBias = (1 << (E - 1)) - 1;
  static constexpr uint32_t kSignBit = 1u << (E + M);
  static constexpr uint32_t kTop = (1u << E) - 1;
  static constexpr uint32_t kInf = kTop << M;
  static constexpr uint32_t kNaN = kIeee ? (kTop << M) | (1u << (M - 1)) : (kTop << M) | ((1u << M) - 1);
  static constexpr uint32_t kMaxFinite = kIeee ? kInf - 1 : kNaN - 1;

  /// The exact value of `bits`.
  static float decode(uint32_t bits) {
    const bool negative = (bits & kSignBit) != 0;
    const uint32_t e = (bits >> M) & kTop;
    const uint32_t m = bits & ((1u << M) - 1);
    float magnitude;
    if (kIeee && e == kTop) {
      magnitude = m == 0 ? INFINITY : NAN;
    } else if (!kIeee && e == kTop && m == (1u << M) - 1) {
      magnitude = NAN;
    } else if (e == 0) {
      magnitude = std::ldexp(static_cast<float>(m), 1 - kBias - M);
    } else {
      magnitude = std::ldexp(static_cast<float>(m | (1u << M)), static_cast<int>(e) - kBias - M);
    }
    return negative ? -magnitude : magnitude;
  }

  /// `value` rounded to nearest even, with the format's overflow rule.
  static uint32_t encode(float value) {
    const uint32_t u = std::bit_cast<uint32_t>(value);
    const uint32_t sign = (u >> 31) ? kSignBit : 0u;
    const uint32_t a = u & 0x7FFFFFFFu;
    if (a > 0x7F800000u) return kNaN;
    if (a == 0x7F800000u) return sign | (kIeee ? kInf : kMaxFinite);
    const int exponent = static_cast<int>(a >> 23) - 127;
    uint32_t code;
    if (exponent < 1 - kBias) {
      // Subnormal in the target (or zero): count quanta of 2^(1-bias-M); scaling by a power of
      // two is exact, nearbyint rounds half to even. A carry to 2^M is the smallest normal.
      const float quanta = std::ldexp(std::bit_cast<float>(a), M + kBias - 1);
      code = static_cast<uint32_t>(std::nearbyint(quanta));
    } else {
      // Normal: round the 23-bit mantissa to M bits (a carry bumps the exponent), rebias.
      constexpr int kShift = 23 - M;
      const uint32_t rounded = (a + ((1u << (kShift - 1)) - 1) + ((a >> kShift) & 1u)) >> kShift;
      code = rounded - (static_cast<uint32_t>(127 - kBias) << M);
    }
    if (code > kMaxFinite) code = kIeee ? kInf : kMaxFinite;
    return sign | code;
  }
};

using Fp16Format = MiniFloat<5, 10, true>;
using E4m3Format = MiniFloat<4, 3, false>;
using E5m2Format = MiniFloat<5, 2, true>;

inline float fp16_to_f32(uint16_t bits) { return Fp16Format::decode(bits); }
inline uint16_t f32_to_fp16(float v) { return static_cast<uint16_t>(Fp16Format::encode(v)); }
inline float e4m3_to_f32(uint8_t bits) { return E4m3Format::decode(bits); }
inline uint8_t f32_to_e4m3(float v) { return static_cast<uint8_t>(E4m3Format::encode(v)); }
inline float e5m2_to_f32(uint8_t bits) { return E5m2Format::decode(bits); }
inline uint8_t f32_to_e5m2(float v) { return static_cast<uint8_t>(E5m2Format::encode(v)); }

/// fp32 -> int8 as the contract converts: half to even, saturated to [-128, 127]; NaN gives 0.
/// quantize clamps to [-qmax, qmax] before this (docs/OPS.md "quantize"; sdk::quantize_qmax).
inline int8_t f32_to_int8(float v) {
  if (std::isnan(v)) return 0;
  return static_cast<int8_t>(std::clamp(std::nearbyint(v), -128.0f, 127.0f));
}

/// Stores `value` rounded once into `dtype` at element `index` of `dst` (fp32, fp16, bf16, fp8,
/// int8); another dtype stores nothing.
inline void store_f32_as(int32_t dtype, void* dst, int64_t index, float value) {
  switch (dtype) {
    case OPCERT_DTYPE_F32: static_cast<float*>(dst)[index] = value; return;
    case OPCERT_DTYPE_F16: static_cast<uint16_t*>(dst)[index] = f32_to_fp16(value); return;
    case OPCERT_DTYPE_BF16: static_cast<uint16_t*>(dst)[index] = f32_to_bf16(value); return;
    case OPCERT_DTYPE_F8_E4M3FN: static_cast<uint8_t*>(dst)[index] = f32_to_e4m3(value); return;
    case OPCERT_DTYPE_F8_E5M2: static_cast<uint8_t*>(dst)[index] = f32_to_e5m2(value); return;
    case OPCERT_DTYPE_I8: static_cast<int8_t*>(dst)[index] = f32_to_int8(value); return;
    default: return;
  }
}

/// Loads element `index` of `src` (fp32, fp16, bf16, fp8, int8) exactly as fp32; NaN for another dtype.
inline float load_as_f32(int32_t dtype, const void* src, int64_t index) {
  switch (dtype) {
    case OPCERT_DTYPE_F32: return static_cast<const float*>(src)[index];
    case OPCERT_DTYPE_F16: return fp16_to_f32(static_cast<const uint16_t*>(src)[index]);
    case OPCERT_DTYPE_BF16: return bf16_to_f32(static_cast<const uint16_t*>(src)[index]);
    case OPCERT_DTYPE_F8_E4M3FN: return e4m3_to_f32(static_cast<const uint8_t*>(src)[index]);
    case OPCERT_DTYPE_F8_E5M2: return e5m2_to_f32(static_cast<const uint8_t*>(src)[index]);
    case OPCERT_DTYPE_I8: return static_cast<const int8_t*>(src)[index];
    default: return NAN;
  }
}

}  // namespace opcert::sdk
