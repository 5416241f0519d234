// fp32 <-> bf16 / fp16 conversions for the CPU backend's vectorised row kernels.
//
// Everything is branchless integer and float arithmetic on bit patterns, so a loop that converts
// element by element still vectorises (no table, no libgcc call). Narrowing rounds to nearest
// even (docs/OPS.md "round to T"), overflows to infinity, and keeps NaN a (quiet) NaN.
#pragma once

#include <bit>
#include <cstdint>

namespace opcert::cpu::vec {

/// Storage types: the raw 16 bits of a bf16 or IEEE binary16 value.
struct bf16 {
  uint16_t bits;
};
struct fp16 {
  uint16_t bits;
};

inline float to_f32(float x) { return x; }

inline float to_f32(bf16 x) { return std::bit_cast<float>(static_cast<uint32_t>(x.bits) << 16); }

inline float to_f32(fp16 x) {
  const uint32_t sign = static_cast<uint32_t>(x.bits & 0x8000u) << 16;
  const uint32_t magnitude = x.bits & 0x7fffu;
  // Shifting exponent and mantissa into fp32 position and scaling by 2^(127-15) rebiases normals
  // and turns subnormals into the right normal value, both exactly.
  const float scaled = std::bit_cast<float>(magnitude << 13) * 0x1p112f;
  const uint32_t finite_bits = std::bit_cast<uint32_t>(scaled);
  const uint32_t special_bits = (magnitude << 13) | 0x7f800000u;  // inf, or NaN with its payload
  return std::bit_cast<float>((magnitude >= 0x7c00u ? special_bits : finite_bits) | sign);
}

template <class T>
T from_f32(float x);

template <>
inline float from_f32<float>(float x) {
  return x;
}

template <>
inline bf16 from_f32<bf16>(float x) {
  const uint32_t u = std::bit_cast<uint32_t>(x);
  const uint32_t rounded = (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;
  const uint32_t quiet_nan = (u >> 16) | 0x40u;
  const bool is_nan = (u & 0x7fffffffu) > 0x7f800000u;
  return bf16{static_cast<uint16_t>(is_nan ? quiet_nan : rounded)};
}

template <>
inline fp16 from_f32<fp16>(float x) {
  const uint32_t u = std::bit_cast<uint32_t>(x);
  const uint32_t sign = (u >> 16) & 0x8000u;
  const uint32_t a = u & 0x7fffffffu;
  // Normal half range: rebias the exponent and round the 13 dropped bits to nearest even;
  // a carry out of the mantissa lands on the next exponent (65520 and up become infinity).
  const uint32_t normal = (a + 0xc8000fffu + ((a >> 13) & 1u)) >> 13;  // 0xc8000000 = (15-127)<<23
  // Below 2^-14: adding 0.5 puts the value's half-subnormal units (2^-24) at the fp32 ulp of
  // 0.5, so the float addition itself rounds to nearest even.
  const uint32_t subnormal = std::bit_cast<uint32_t>(std::bit_cast<float>(a) + 0.5f) - 0x3f000000u;
  const uint32_t finite = a < 0x38800000u ? subnormal : (a >= 0x47800000u ? 0x7c00u : normal);
  const uint32_t special = a > 0x7f800000u ? (0x7e00u | ((a >> 13) & 0x1ffu)) : 0x7c00u;
  return fp16{static_cast<uint16_t>(sign | (a >= 0x7f800000u ? special : finite))};
}

/// Rounds x to T and back: the value a T output holds.
template <class T>
inline float round_through(float x) {
  return to_f32(from_f32<T>(x));
}

}  // namespace opcert::cpu::vec
