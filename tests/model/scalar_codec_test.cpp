// harness/model/scalar_codec against the format definitions, worked out here independently:
// every code of e4m3fn, e5m2, fp16 and bf16, round trips, ties to even, overflow rules, ulps.
#include "model/scalar_codec.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <vector>

#include "model/dtype.h"

namespace opcert {
namespace {

// value = (-1)^s * significand * 2^(exponent), with the significand an integer: subnormals use
// the implicit exponent 1 and no hidden bit. nullopt for NaN, +-inf returned as such.
struct FormatDef {
  int exp_bits, man_bits, bias;
  bool has_inf;            // top exponent with zero mantissa is inf (IEEE); else finite
  bool nan_only_all_ones;  // e4m3fn: only the all-ones code of the top exponent is NaN
};

std::optional<double> reference_decode(const FormatDef& f, uint32_t code) {
  const uint32_t man_mask = (1u << f.man_bits) - 1;
  const uint32_t exp_all = (1u << f.exp_bits) - 1;
  const bool negative = ((code >> (f.exp_bits + f.man_bits)) & 1u) != 0;
  const uint32_t e = (code >> f.man_bits) & exp_all;
  const uint32_t m = code & man_mask;
  if (e == exp_all) {
    if (f.nan_only_all_ones) {
      if (m == man_mask) return std::nullopt;
    } else {
      if (m != 0) return std::nullopt;
      return negative ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::infinity();
    }
  }
  const double significand = e == 0 ? static_cast<double>(m) : static_cast<double>(m + (1u << f.man_bits));
  const int exponent = (e == 0 ? 1 : static_cast<int>(e)) - f.bias - f.man_bits;
  const double magnitude = std::ldexp(significand, exponent);
  return negative ? -magnitude : magnitude;
}

constexpr FormatDef kE4m3{4, 3, 7, false, true};
constexpr FormatDef kE5m2{5, 2, 15, true, false};
constexpr FormatDef kFp16{5, 10, 15, true, false};
constexpr FormatDef kBf16{8, 7, 127, true, false};

void expect_same(double got, std::optional<double> want, uint32_t code) {
  if (!want) {
    EXPECT_TRUE(std::isnan(got)) << "code 0x" << std::hex << code;
    return;
  }
  EXPECT_EQ(got, *want) << "code 0x" << std::hex << code;
  EXPECT_EQ(std::signbit(got), std::signbit(*want)) << "code 0x" << std::hex << code;
}

TEST(ScalarCodec, E4m3fnEveryCodeDecodesAndRoundTrips) {
  int nan_codes = 0;
  for (uint32_t code = 0; code < 256; ++code) {
    const double v = decode_fp8_e4m3fn(static_cast<uint8_t>(code));
    const auto want = reference_decode(kE4m3, code);
    expect_same(v, want, code);
    if (!want) {
      ++nan_codes;
      EXPECT_TRUE(std::isnan(decode_fp8_e4m3fn(encode_fp8_e4m3fn(v))));
      continue;
    }
    EXPECT_EQ(encode_fp8_e4m3fn(v), code) << "code 0x" << std::hex << code;
  }
  EXPECT_EQ(nan_codes, 2);  // 0x7F and 0xFF
}

TEST(ScalarCodec, E5m2EveryCodeDecodesAndRoundTrips) {
  int nan_codes = 0;
  for (uint32_t code = 0; code < 256; ++code) {
    const double v = decode_fp8_e5m2(static_cast<uint8_t>(code));
    const auto want = reference_decode(kE5m2, code);
    expect_same(v, want, code);
    if (!want) {
      ++nan_codes;
      EXPECT_TRUE(std::isnan(decode_fp8_e5m2(encode_fp8_e5m2(v))));
      continue;
    }
    EXPECT_EQ(encode_fp8_e5m2(v), code) << "code 0x" << std::hex << code;
  }
  EXPECT_EQ(nan_codes, 6);  // three mantissas, two signs
}

TEST(ScalarCodec, Fp16AndBf16EveryCodeDecodesAndRoundTrips) {
  for (uint32_t code = 0; code < 65536; ++code) {
    const auto half = static_cast<uint16_t>(code);
    const double h = decode_fp16(half);
    const double b = decode_bf16(half);
    expect_same(h, reference_decode(kFp16, code), code);
    expect_same(b, reference_decode(kBf16, code), code);
    if (!std::isnan(h)) {
      EXPECT_EQ(encode_fp16(h), code);
    }
    if (!std::isnan(b)) {
      EXPECT_EQ(encode_bf16(b), code);
    }
  }
}

TEST(ScalarCodec, KnownFp8Values) {
  EXPECT_EQ(decode_fp8_e4m3fn(0x38), 1.0);
  EXPECT_EQ(decode_fp8_e4m3fn(0x3C), 1.5);
  EXPECT_EQ(decode_fp8_e4m3fn(0x40), 2.0);
  EXPECT_EQ(decode_fp8_e4m3fn(0x77), 240.0);
  EXPECT_EQ(decode_fp8_e4m3fn(0x7E), 448.0);
  EXPECT_EQ(decode_fp8_e4m3fn(0xFE), -448.0);
  EXPECT_EQ(decode_fp8_e4m3fn(0x08), 0.015625);       // 2^-6, smallest normal
  EXPECT_EQ(decode_fp8_e4m3fn(0x01), 0.001953125);    // 2^-9, smallest subnormal
  EXPECT_EQ(decode_fp8_e4m3fn(0x07), 0.013671875);    // 7 * 2^-9
  EXPECT_TRUE(std::signbit(decode_fp8_e4m3fn(0x80)));
  EXPECT_TRUE(std::isnan(decode_fp8_e4m3fn(0x7F)));
  EXPECT_TRUE(std::isnan(decode_fp8_e4m3fn(0xFF)));

  EXPECT_EQ(decode_fp8_e5m2(0x3C), 1.0);
  EXPECT_EQ(decode_fp8_e5m2(0x7B), 57344.0);
  EXPECT_EQ(decode_fp8_e5m2(0x04), 0.00006103515625);  // 2^-14
  EXPECT_EQ(decode_fp8_e5m2(0x01), 0.0000152587890625);  // 2^-16
  EXPECT_EQ(decode_fp8_e5m2(0x7C), std::numeric_limits<double>::infinity());
  EXPECT_EQ(decode_fp8_e5m2(0xFC), -std::numeric_limits<double>::infinity());
  EXPECT_TRUE(std::isnan(decode_fp8_e5m2(0x7D)));
  EXPECT_TRUE(std::isnan(decode_fp8_e5m2(0xFF)));
}

TEST(ScalarCodec, RoundsTiesToEven) {
  // e4m3fn around 1: codes 0x38 = 1, 0x39 = 1.125, 0x3A = 1.25.
  EXPECT_EQ(encode_fp8_e4m3fn(1.0625), 0x38);
  EXPECT_EQ(encode_fp8_e4m3fn(std::nextafter(1.0625, 2.0)), 0x39);
  EXPECT_EQ(encode_fp8_e4m3fn(1.1875), 0x3A);
  EXPECT_EQ(encode_fp8_e4m3fn(-1.1875), 0xBA);
  // e4m3fn subnormals: 2^-10 lies halfway between 0 and 2^-9; 3 * 2^-10 between 1 and 2 quanta.
  EXPECT_EQ(encode_fp8_e4m3fn(std::ldexp(1.0, -10)), 0x00);
  EXPECT_EQ(encode_fp8_e4m3fn(std::nextafter(std::ldexp(1.0, -10), 1.0)), 0x01);
  EXPECT_EQ(encode_fp8_e4m3fn(std::ldexp(3.0, -10)), 0x02);
  // The largest subnormal rounds up into the smallest normal: 7.5 * 2^-9 -> 8 * 2^-9 = 0x08.
  EXPECT_EQ(encode_fp8_e4m3fn(std::ldexp(15.0, -10)), 0x08);
  // e5m2: 1 = 0x3C, 1.25 = 0x3D, 1.5 = 0x3E.
  EXPECT_EQ(encode_fp8_e5m2(1.125), 0x3C);
  EXPECT_EQ(encode_fp8_e5m2(1.375), 0x3E);
  // bf16 and fp16: a tie just above 1.
  EXPECT_EQ(encode_bf16(1.0 + std::ldexp(1.0, -8)), 0x3F80);
  EXPECT_EQ(encode_bf16(1.0 + std::ldexp(3.0, -8)), 0x3F82);
  EXPECT_EQ(encode_fp16(1.0 + std::ldexp(1.0, -11)), 0x3C00);
  EXPECT_EQ(encode_fp16(1.0 + std::ldexp(3.0, -11)), 0x3C02);
  // fp16 subnormal ties: 2^-25 -> 0, 3 * 2^-25 -> 2 * 2^-24.
  EXPECT_EQ(encode_fp16(std::ldexp(1.0, -25)), 0x0000);
  EXPECT_EQ(encode_fp16(std::ldexp(3.0, -25)), 0x0002);
}

// Every rounding boundary of every format: the midpoint between two neighbouring codes goes to
// the even one, the doubles either side of it to the nearer; the spacing at each code is the gap
// to the next. The encoder's bit-level fast path (no frexp, no ldexp) must agree everywhere.
TEST(ScalarCodec, EveryMidpointRoundsToNearestEven) {
  struct Case {
    FormatDef def;
    opcert_dtype dtype;
    uint32_t (*encode)(double);
  };
  const Case cases[] = {
      {kFp16, OPCERT_DTYPE_F16, [](double v) -> uint32_t { return encode_fp16(v); }},
      {kBf16, OPCERT_DTYPE_BF16, [](double v) -> uint32_t { return encode_bf16(v); }},
      {kE4m3, OPCERT_DTYPE_F8_E4M3FN, [](double v) -> uint32_t { return encode_fp8_e4m3fn(v); }},
      {kE5m2, OPCERT_DTYPE_F8_E5M2, [](double v) -> uint32_t { return encode_fp8_e5m2(v); }},
  };
  for (const Case& c : cases) {
    const uint32_t sign = 1u << (c.def.exp_bits + c.def.man_bits);
    int failures = 0;
    for (uint32_t code = 0; code + 1 < sign && failures < 10; ++code) {
      const auto lo = reference_decode(c.def, code), hi = reference_decode(c.def, code + 1);
      if (!lo || !hi || std::isinf(*hi)) break;  // past the largest finite code
      const double mid = (*lo + *hi) / 2.0;     // exact: one more bit than the format has
      const uint32_t even = code % 2 == 0 ? code : code + 1;
      const uint32_t got[] = {c.encode(mid), c.encode(std::nextafter(mid, 0.0)), c.encode(std::nextafter(mid, 1e300)),
                              c.encode(-mid)};
      const uint32_t want[] = {even, code, code + 1, even | sign};
      for (int i = 0; i < 4; ++i) {
        EXPECT_EQ(got[i], want[i]) << "dtype " << c.dtype << " code 0x" << std::hex << code << " case " << i;
        failures += got[i] != want[i];
      }
      EXPECT_EQ(round_to(c.dtype, mid), *reference_decode(c.def, even));
      if (code > 0) {
        EXPECT_EQ(grid_spacing(c.dtype, *lo), *hi - *lo) << "dtype " << c.dtype << " code 0x" << std::hex << code;
      }
    }
  }
}

// store_block (a run of values, the format fixed at compile time) writes the bytes store_as writes,
// value by value: every midpoint of every code and its neighbours, zeros, specials, values past
// the largest finite and below the smallest subnormal, in every dtype.
TEST(ScalarCodec, AStoredBlockIsTheValuesStoredOneByOne) {
  std::vector<double> values = {0.0, -0.0, std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity(),
                                std::nan(""), 1e300, -1e300, 1e-300, -1e-300, 4.9e-324, 65520.0, 448.0, 464.0, 0.5};
  for (const FormatDef& def : {kFp16, kBf16, kE4m3, kE5m2}) {
    const uint32_t sign = 1u << (def.exp_bits + def.man_bits);
    for (uint32_t code = 0; code + 1 < sign; ++code) {
      const auto lo = reference_decode(def, code), hi = reference_decode(def, code + 1);
      if (!lo || !hi || std::isinf(*hi)) break;
      const double mid = (*lo + *hi) / 2.0;
      for (const double v : {mid, std::nextafter(mid, 0.0), std::nextafter(mid, 1e300), *lo}) {
        values.push_back(v);
        values.push_back(-v);
      }
    }
  }
  for (const opcert_dtype dtype : {OPCERT_DTYPE_F64, OPCERT_DTYPE_F32, OPCERT_DTYPE_F16, OPCERT_DTYPE_BF16,
                                   OPCERT_DTYPE_F8_E4M3FN, OPCERT_DTYPE_F8_E5M2, OPCERT_DTYPE_I8, OPCERT_DTYPE_I32}) {
    const std::size_t width = dtype_bytes(dtype);
    std::vector<unsigned char> one(values.size() * width), block(values.size() * width);
    for (std::size_t i = 0; i < values.size(); ++i) store_as(dtype, values[i], one.data() + i * width);
    store_block(dtype, values.data(), values.size(), block.data());
    EXPECT_EQ(one, block) << "dtype " << dtype;
  }
}

TEST(ScalarCodec, E4m3fnSaturatesAt448) {
  EXPECT_EQ(encode_fp8_e4m3fn(448.0), 0x7E);
  EXPECT_EQ(encode_fp8_e4m3fn(464.0), 0x7E);  // the tie above 448 would round to 480
  EXPECT_EQ(encode_fp8_e4m3fn(500.0), 0x7E);
  EXPECT_EQ(encode_fp8_e4m3fn(1e6), 0x7E);
  EXPECT_EQ(encode_fp8_e4m3fn(-1e6), 0xFE);
  EXPECT_EQ(encode_fp8_e4m3fn(std::numeric_limits<double>::infinity()), 0x7E);
  EXPECT_EQ(encode_fp8_e4m3fn(std::nan("")), 0x7F);
  EXPECT_EQ(round_to(OPCERT_DTYPE_F8_E4M3FN, -1000.0), -448.0);
}

TEST(ScalarCodec, E5m2OverflowsToInfinity) {
  EXPECT_EQ(encode_fp8_e5m2(57344.0), 0x7B);
  EXPECT_EQ(encode_fp8_e5m2(61439.0), 0x7B);
  EXPECT_EQ(encode_fp8_e5m2(61440.0), 0x7C);  // the tie rounds to the even 65536: infinity
  EXPECT_EQ(encode_fp8_e5m2(1e6), 0x7C);
  EXPECT_EQ(encode_fp8_e5m2(-1e6), 0xFC);
  EXPECT_TRUE(std::isnan(decode_fp8_e5m2(encode_fp8_e5m2(std::nan("")))));
  EXPECT_EQ(encode_fp16(65519.0), 0x7BFF);
  EXPECT_EQ(encode_fp16(65520.0), 0x7C00);
  EXPECT_EQ(encode_bf16(1e39), 0x7F80);
}

TEST(ScalarCodec, Bf16AndFp16SpotValues) {
  EXPECT_EQ(decode_bf16(0x3F80), 1.0);
  EXPECT_EQ(decode_bf16(0xC040), -3.0);
  EXPECT_EQ(decode_bf16(0x0001), std::ldexp(1.0, -133));  // smallest subnormal
  EXPECT_EQ(decode_bf16(0x007F), std::ldexp(127.0, -133));
  EXPECT_EQ(decode_bf16(0x7F7F), std::ldexp(255.0, 120));  // largest finite
  EXPECT_TRUE(std::isnan(decode_bf16(0x7FC0)));
  EXPECT_EQ(decode_fp16(0x3C00), 1.0);
  EXPECT_EQ(decode_fp16(0x0001), std::ldexp(1.0, -24));
  EXPECT_EQ(decode_fp16(0x03FF), std::ldexp(1023.0, -24));
  EXPECT_EQ(decode_fp16(0x0400), std::ldexp(1.0, -14));
  EXPECT_EQ(decode_fp16(0x7BFF), 65504.0);
  EXPECT_EQ(decode_fp16(0xFC00), -std::numeric_limits<double>::infinity());
  // bf16 agrees with the top half of the fp32 pattern for values it holds exactly.
  EXPECT_EQ(encode_bf16(-2.5), static_cast<uint16_t>(std::bit_cast<uint32_t>(-2.5f) >> 16));
}

TEST(ScalarCodec, RoundToIntegersAndFp32) {
  EXPECT_EQ(round_to(OPCERT_DTYPE_I8, 2.5), 2.0);
  EXPECT_EQ(round_to(OPCERT_DTYPE_I8, 3.5), 4.0);
  EXPECT_EQ(round_to(OPCERT_DTYPE_I8, -2.5), -2.0);
  EXPECT_EQ(round_to(OPCERT_DTYPE_I8, 200.0), 127.0);
  EXPECT_EQ(round_to(OPCERT_DTYPE_I8, -200.0), -128.0);
  EXPECT_EQ(round_to(OPCERT_DTYPE_I32, 1e12), 2147483647.0);
  EXPECT_EQ(round_to(OPCERT_DTYPE_F32, 1.0 + std::ldexp(1.0, -24)), 1.0);
  EXPECT_EQ(round_to(OPCERT_DTYPE_F32, 1.0 + std::ldexp(3.0, -24)), 1.0 + std::ldexp(1.0, -22));
}

TEST(ScalarCodec, UlpDistance) {
  EXPECT_EQ(ulp_distance(OPCERT_DTYPE_F32, 1.0, std::nextafter(1.0f, 2.0f)), 1);
  EXPECT_EQ(ulp_distance(OPCERT_DTYPE_F32, 1.0, 1.0), 0);
  EXPECT_EQ(ulp_distance(OPCERT_DTYPE_BF16, 1.0, 1.0078125), 1);
  EXPECT_EQ(ulp_distance(OPCERT_DTYPE_BF16, 1.0, 2.0), 128);
  EXPECT_EQ(ulp_distance(OPCERT_DTYPE_F8_E4M3FN, 448.0, 416.0), 1);
  EXPECT_EQ(ulp_distance(OPCERT_DTYPE_F8_E4M3FN, 448.0, -448.0), 252);  // 126 codes each side of zero
  EXPECT_EQ(ulp_distance(OPCERT_DTYPE_F8_E4M3FN, std::ldexp(1.0, -9), -std::ldexp(1.0, -9)), 2);
  EXPECT_EQ(ulp_distance(OPCERT_DTYPE_F8_E5M2, 1.0, 2.0), 4);
  EXPECT_EQ(ulp_distance(OPCERT_DTYPE_F16, 0.0, std::ldexp(1.0, -24)), 1);
  EXPECT_EQ(ulp_distance(OPCERT_DTYPE_F16, 0.0, -0.0), 0);
  EXPECT_EQ(ulp_distance(OPCERT_DTYPE_F64, 1.0, std::nextafter(std::nextafter(1.0, 2.0), 2.0)), 2);
  EXPECT_EQ(ulp_distance(OPCERT_DTYPE_I32, -3.0, 4.0), 7);
}

TEST(ScalarCodec, UnitRoundoffAndMaxFinite) {
  EXPECT_EQ(unit_roundoff(OPCERT_DTYPE_BF16), std::ldexp(1.0, -8));
  EXPECT_EQ(unit_roundoff(OPCERT_DTYPE_F16), std::ldexp(1.0, -11));
  EXPECT_EQ(unit_roundoff(OPCERT_DTYPE_F8_E4M3FN), std::ldexp(1.0, -4));
  EXPECT_EQ(unit_roundoff(OPCERT_DTYPE_F8_E5M2), std::ldexp(1.0, -3));
  EXPECT_EQ(unit_roundoff(OPCERT_DTYPE_I8), 0.0);
  EXPECT_EQ(max_finite(OPCERT_DTYPE_F8_E4M3FN), 448.0);
  EXPECT_EQ(max_finite(OPCERT_DTYPE_F8_E5M2), 57344.0);
  EXPECT_EQ(max_finite(OPCERT_DTYPE_F16), 65504.0);
  EXPECT_EQ(max_finite(OPCERT_DTYPE_BF16), std::ldexp(255.0, 120));
}

}  // namespace
}  // namespace opcert
