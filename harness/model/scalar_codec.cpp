#include "model/scalar_codec.h"

#include "model/dtype.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <vector>

namespace opcert {
namespace {

// A small binary floating format: sign, `ebits` exponent bits, `mbits` mantissa bits.
struct Format {
  int ebits;
  int mbits;
  bool ieee_specials;  // top exponent holds inf/NaN (fp16, bf16, e5m2); e4m3fn: only S.1111.111 is NaN
  int bias() const { return (1 << (ebits - 1)) - 1; }
  int max_exponent() const { return ieee_specials ? (1 << ebits) - 2 - bias() : (1 << ebits) - 1 - bias(); }
  double max_finite() const {
    // e4m3fn gives up its top mantissa code at the top exponent to NaN.
    const double top_mantissa = ieee_specials ? 2.0 - std::ldexp(1.0, -mbits) : 2.0 - std::ldexp(2.0, -mbits);
    return std::ldexp(top_mantissa, max_exponent());
  }
};

constexpr Format kFp16{5, 10, true};
constexpr Format kBf16{8, 7, true};
constexpr Format kE4m3{4, 3, false};
constexpr Format kE5m2{5, 2, true};

double decode(const Format& f, uint32_t bits) {
  const uint32_t sign = bits >> (f.ebits + f.mbits) & 1u;
  const uint32_t e = bits >> f.mbits & ((1u << f.ebits) - 1);
  const uint32_t m = bits & ((1u << f.mbits) - 1);
  const double s = sign ? -1.0 : 1.0;
  const uint32_t top = (1u << f.ebits) - 1;
  if (f.ieee_specials && e == top) return m == 0 ? s * std::numeric_limits<double>::infinity() : std::nan("");
  if (!f.ieee_specials && e == top && m == (1u << f.mbits) - 1) return std::nan("");
  if (e == 0) return s * std::ldexp(static_cast<double>(m), 1 - f.bias() - f.mbits);
  return s * std::ldexp(1.0 + std::ldexp(static_cast<double>(m), -f.mbits), static_cast<int>(e) - f.bias());
}

// Exact bit-level stand-ins for frexp and ldexp(1, e), which are calls: the codec is the inner
// loop of input generation and of the check (docs/PERFORMANCE.md, "The harness").
// floor(log2 |x|) of a normal double; below the normal range, the smallest normal's (callers clamp).
int binade(double x) {
  const auto biased = static_cast<int>(std::bit_cast<uint64_t>(x) >> 52 & 0x7FF);
  return biased == 0 ? -1022 : biased - 1023;
}

// 2^e, exactly (ldexp outside the normal range, where the bits would not do).
double power_of_two(int e) {
  if (e < -1022 || e > 1023) return std::ldexp(1.0, e);
  return std::bit_cast<double>(static_cast<uint64_t>(e + 1023) << 52);
}

// The spacing of a binary format's values in the binade of |x|: `mbits` stored mantissa bits,
// normal exponents from `min_exponent` (the subnormal spacing below it). The caller's formats
// have min_exponent >= -1022, so binade's floor for subnormal doubles changes nothing.
double quantum(int mbits, int min_exponent, double x) {
  if (x == 0.0 || !std::isfinite(x)) return power_of_two(std::max(-1, min_exponent) - mbits);  // frexp's exponent 0
  return power_of_two(std::max(binade(std::fabs(x)), min_exponent) - mbits);
}

// Round to nearest even into the format, from the double's bits alone: the inner loop of input
// generation and of the check, so no floating-point call. The same codes as rounding |x| on the
// format's grid and then saturating (e4m3fn) or overflowing to infinity (the others) above the
// largest finite value, which tests/model/scalar_codec_test.cpp checks code by code and midpoint
// by midpoint.
[[gnu::always_inline]] inline uint32_t encode(const Format& f, double value) {
  const uint32_t sign_bit = 1u << (f.ebits + f.mbits);
  const uint32_t top = (1u << f.ebits) - 1;
  const uint32_t mantissa_mask = (1u << f.mbits) - 1;
  const uint32_t nan_bits = f.ieee_specials ? (top << f.mbits) | (1u << (f.mbits - 1)) : (top << f.mbits) | mantissa_mask;
  // The largest finite code: below the top exponent (IEEE), or all but the NaN code (e4m3fn).
  const uint32_t max_code = f.ieee_specials ? (top << f.mbits) - 1 : (top << f.mbits) | (mantissa_mask - 1);
  const uint64_t bits = std::bit_cast<uint64_t>(value);
  const uint32_t sign = bits >> 63 ? sign_bit : 0u;
  const uint64_t magnitude = bits & ~(uint64_t{1} << 63);
  constexpr uint64_t kInfinity = uint64_t{0x7FF} << 52;
  if (magnitude > kInfinity) return nan_bits;
  const uint32_t too_big = f.ieee_specials ? sign | (top << f.mbits) : sign | max_code;  // infinity, or saturated
  if (magnitude == kInfinity) return too_big;
  const auto biased = static_cast<int>(magnitude >> 52);
  if (biased == 0) return sign;  // a subnormal double is far below every format's smallest value
  const int exponent = biased - 1023;
  const uint64_t significand = (magnitude & ((uint64_t{1} << 52) - 1)) | (uint64_t{1} << 52);
  const int min_exponent = 1 - f.bias();
  // The bits of the significand below the format's last place: more below its normal range.
  const int shift = 52 - f.mbits + std::max(0, min_exponent - exponent);
  if (shift > 62) return sign;  // under half the smallest subnormal
  uint64_t q = significand >> shift;
  const uint64_t rest = significand & ((uint64_t{1} << shift) - 1);
  const uint64_t half = uint64_t{1} << (shift - 1);
  if (rest > half || (rest == half && (q & 1) != 0)) ++q;
  // Normal: the implicit bit in q carries into the exponent field (and a round-up past the
  // binade's top into the next); subnormal: q is the code itself (1 << mbits: the smallest normal).
  const uint64_t code =
      exponent >= min_exponent ? (static_cast<uint64_t>(exponent - min_exponent) << f.mbits) + q : q;
  if (code > max_code) return too_big;
  return sign | static_cast<uint32_t>(code);
}

const Format* format_of(opcert_dtype dtype) {
  switch (dtype) {
    case OPCERT_DTYPE_F16: return &kFp16;
    case OPCERT_DTYPE_BF16: return &kBf16;
    case OPCERT_DTYPE_F8_E4M3FN: return &kE4m3;
    case OPCERT_DTYPE_F8_E5M2: return &kE5m2;
    default: return nullptr;
  }
}

double round_integer(double value, double lo, double hi) {
  if (std::isnan(value)) return 0.0;
  return std::clamp(std::nearbyint(value), lo, hi);
}

// Position of a value in the ordered sequence of a sign-magnitude encoding.
int64_t ordinal(uint64_t bits, int sign_shift) {
  const uint64_t sign = uint64_t{1} << sign_shift;
  const auto magnitude = static_cast<int64_t>(bits & (sign - 1));
  return (bits & sign) ? -magnitude : magnitude;
}

// Every code of a format decoded once (by `decode`, the definition), so a load is a lookup.
template <std::size_t N>
std::vector<double> decode_all(const Format& f) {
  std::vector<double> table(N);
  for (std::size_t code = 0; code < N; ++code) table[code] = decode(f, static_cast<uint32_t>(code));
  return table;
}

double decoded(const Format& f, uint32_t bits) {
  static const std::vector<double> fp16 = decode_all<65536>(kFp16), bf16 = decode_all<65536>(kBf16),
                                   e4m3 = decode_all<256>(kE4m3), e5m2 = decode_all<256>(kE5m2);
  if (&f == &kFp16) return fp16[bits];
  if (&f == &kBf16) return bf16[bits];
  if (&f == &kE4m3) return e4m3[bits];
  if (&f == &kE5m2) return e5m2[bits];
  return decode(f, bits);
}

}  // namespace

double decode_fp16(uint16_t bits) { return decoded(kFp16, bits); }
double decode_bf16(uint16_t bits) { return decoded(kBf16, bits); }
double decode_fp8_e4m3fn(uint8_t bits) { return decoded(kE4m3, bits); }
double decode_fp8_e5m2(uint8_t bits) { return decoded(kE5m2, bits); }

uint16_t encode_fp16(double value) { return static_cast<uint16_t>(encode(kFp16, value)); }
uint16_t encode_bf16(double value) { return static_cast<uint16_t>(encode(kBf16, value)); }
uint8_t encode_fp8_e4m3fn(double value) { return static_cast<uint8_t>(encode(kE4m3, value)); }
uint8_t encode_fp8_e5m2(double value) { return static_cast<uint8_t>(encode(kE5m2, value)); }

void store_as(opcert_dtype dtype, double value, void* dst) {
  switch (dtype) {
    case OPCERT_DTYPE_F64: std::memcpy(dst, &value, 8); return;
    case OPCERT_DTYPE_F32: {
      const auto f = static_cast<float>(value);
      std::memcpy(dst, &f, 4);
      return;
    }
    case OPCERT_DTYPE_F16:
    case OPCERT_DTYPE_BF16: {
      const uint16_t b = static_cast<uint16_t>(encode(*format_of(dtype), value));
      std::memcpy(dst, &b, 2);
      return;
    }
    case OPCERT_DTYPE_F8_E4M3FN:
    case OPCERT_DTYPE_F8_E5M2: {
      const uint8_t b = static_cast<uint8_t>(encode(*format_of(dtype), value));
      std::memcpy(dst, &b, 1);
      return;
    }
    case OPCERT_DTYPE_I8: {
      const auto i = static_cast<int8_t>(round_integer(value, -128, 127));
      std::memcpy(dst, &i, 1);
      return;
    }
    case OPCERT_DTYPE_I32: {
      const auto i = static_cast<int32_t>(round_integer(value, -2147483648.0, 2147483647.0));
      std::memcpy(dst, &i, 4);
      return;
    }
    default: throw std::invalid_argument("store_as: invalid dtype");
  }
}

namespace {

// One format's codes for a run of values: the format known at compile time, so the encoder is
// specialised for it (the inner loop of input generation).
template <class Code, const Format& F>
void encode_run(const double* values, std::size_t n, std::byte* dst) {
  for (std::size_t i = 0; i < n; ++i) {
    const auto code = static_cast<Code>(encode(F, values[i]));
    std::memcpy(dst + i * sizeof(Code), &code, sizeof(Code));
  }
}

}  // namespace

void store_block(opcert_dtype dtype, const double* values, std::size_t n, void* dst) {
  auto* out = static_cast<std::byte*>(dst);
  switch (dtype) {
    case OPCERT_DTYPE_F16: return encode_run<uint16_t, kFp16>(values, n, out);
    case OPCERT_DTYPE_BF16: return encode_run<uint16_t, kBf16>(values, n, out);
    case OPCERT_DTYPE_F8_E4M3FN: return encode_run<uint8_t, kE4m3>(values, n, out);
    case OPCERT_DTYPE_F8_E5M2: return encode_run<uint8_t, kE5m2>(values, n, out);
    default: {
      const std::size_t width = dtype_bytes(dtype);
      for (std::size_t i = 0; i < n; ++i) store_as(dtype, values[i], out + i * width);
    }
  }
}

double load_from(opcert_dtype dtype, const void* src) {
  switch (dtype) {
    case OPCERT_DTYPE_F64: {
      double d;
      std::memcpy(&d, src, 8);
      return d;
    }
    case OPCERT_DTYPE_F32: {
      float f;
      std::memcpy(&f, src, 4);
      return f;
    }
    case OPCERT_DTYPE_F16:
    case OPCERT_DTYPE_BF16: {
      uint16_t b;
      std::memcpy(&b, src, 2);
      return decoded(*format_of(dtype), b);
    }
    case OPCERT_DTYPE_F8_E4M3FN:
    case OPCERT_DTYPE_F8_E5M2: return decoded(*format_of(dtype), *static_cast<const uint8_t*>(src));
    case OPCERT_DTYPE_I8: return *static_cast<const int8_t*>(src);
    case OPCERT_DTYPE_I32: {
      int32_t i;
      std::memcpy(&i, src, 4);
      return i;
    }
    default: throw std::invalid_argument("load_from: invalid dtype");
  }
}

double round_to(opcert_dtype dtype, double value) {
  if (dtype == OPCERT_DTYPE_F64) return value;
  alignas(8) unsigned char buf[8];
  store_as(dtype, value, buf);
  return load_from(dtype, buf);
}

int64_t ulp_distance(opcert_dtype dtype, double a, double b) {
  switch (dtype) {
    case OPCERT_DTYPE_F64: return std::abs(ordinal(std::bit_cast<uint64_t>(a), 63) - ordinal(std::bit_cast<uint64_t>(b), 63));
    case OPCERT_DTYPE_F32:
      return std::abs(ordinal(std::bit_cast<uint32_t>(static_cast<float>(a)), 31) -
                      ordinal(std::bit_cast<uint32_t>(static_cast<float>(b)), 31));
    case OPCERT_DTYPE_I8:
    case OPCERT_DTYPE_I32: return static_cast<int64_t>(std::fabs(a - b));
    default: {
      const Format& f = *format_of(dtype);
      const int sign_shift = f.ebits + f.mbits;
      return std::abs(ordinal(encode(f, a), sign_shift) - ordinal(encode(f, b), sign_shift));
    }
  }
}

double unit_roundoff(opcert_dtype dtype) {
  switch (dtype) {
    case OPCERT_DTYPE_F64: return std::ldexp(1.0, -53);
    case OPCERT_DTYPE_F32: return std::ldexp(1.0, -24);
    case OPCERT_DTYPE_I8:
    case OPCERT_DTYPE_I32: return 0.0;
    default: return std::ldexp(1.0, -(format_of(dtype)->mbits + 1));
  }
}

double grid_spacing(opcert_dtype dtype, double value) {
  switch (dtype) {
    case OPCERT_DTYPE_F64: return quantum(52, -1022, value);
    case OPCERT_DTYPE_F32: return quantum(23, -126, value);
    case OPCERT_DTYPE_I8:
    case OPCERT_DTYPE_I32: return 1.0;
    default: {
      const Format& f = *format_of(dtype);
      return quantum(f.mbits, 1 - f.bias(), value);
    }
  }
}

double max_finite(opcert_dtype dtype) {
  switch (dtype) {
    case OPCERT_DTYPE_F64: return std::numeric_limits<double>::max();
    case OPCERT_DTYPE_F32: return std::numeric_limits<float>::max();
    case OPCERT_DTYPE_I8: return 127.0;
    case OPCERT_DTYPE_I32: return 2147483647.0;
    default: return format_of(dtype)->max_finite();
  }
}

}  // namespace opcert
