// The SDK's public codecs (opcert/sdk/number_codecs.h) against the harness's own, independent
// codec (harness/model/scalar_codec): every 8- and 16-bit pattern decodes to the same value and
// encodes back to itself, and every rounding boundary (each midpoint between neighbours, the
// floats just below and above it, the overflow region past the largest finite value) rounds the
// same way. int8 at every half-integer of its range and beyond.
#include <opcert/sdk/number_codecs.h>

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <vector>

#include "model/scalar_codec.h"

namespace opcert {
namespace {

struct Codec {
  const char* name;
  int bits;
  std::function<float(uint32_t)> sdk_decode;
  std::function<uint32_t(float)> sdk_encode;
  std::function<double(uint32_t)> harness_decode;
  std::function<uint32_t(double)> harness_encode;
};

std::vector<Codec> codecs() {
  return {
      {"bf16", 16, [](uint32_t b) { return sdk::bf16_to_f32(static_cast<uint16_t>(b)); },
       [](float v) { return uint32_t{sdk::f32_to_bf16(v)}; }, [](uint32_t b) { return decode_bf16(static_cast<uint16_t>(b)); },
       [](double v) { return uint32_t{encode_bf16(v)}; }},
      {"fp16", 16, [](uint32_t b) { return sdk::fp16_to_f32(static_cast<uint16_t>(b)); },
       [](float v) { return uint32_t{sdk::f32_to_fp16(v)}; }, [](uint32_t b) { return decode_fp16(static_cast<uint16_t>(b)); },
       [](double v) { return uint32_t{encode_fp16(v)}; }},
      {"e4m3fn", 8, [](uint32_t b) { return sdk::e4m3_to_f32(static_cast<uint8_t>(b)); },
       [](float v) { return uint32_t{sdk::f32_to_e4m3(v)}; }, [](uint32_t b) { return decode_fp8_e4m3fn(static_cast<uint8_t>(b)); },
       [](double v) { return uint32_t{encode_fp8_e4m3fn(v)}; }},
      {"e5m2", 8, [](uint32_t b) { return sdk::e5m2_to_f32(static_cast<uint8_t>(b)); },
       [](float v) { return uint32_t{sdk::f32_to_e5m2(v)}; }, [](uint32_t b) { return decode_fp8_e5m2(static_cast<uint8_t>(b)); },
       [](double v) { return uint32_t{encode_fp8_e5m2(v)}; }},
  };
}

class NumberCodecs : public ::testing::TestWithParam<Codec> {};

TEST_P(NumberCodecs, EveryPatternDecodesAsTheHarnessDoesAndEncodesBackToItself) {
  const Codec& c = GetParam();
  int64_t checked = 0;
  for (uint32_t bits = 0; bits < (1u << c.bits); ++bits) {
    const float got = c.sdk_decode(bits);
    const double want = c.harness_decode(bits);
    if (std::isnan(want)) {
      EXPECT_TRUE(std::isnan(got)) << c.name << " 0x" << std::hex << bits;
      EXPECT_EQ(c.sdk_encode(got), c.harness_encode(want)) << c.name << ": the NaN each encodes";
      continue;
    }
    ASSERT_EQ(static_cast<double>(got), want) << c.name << " 0x" << std::hex << bits;
    ASSERT_EQ(std::signbit(got), std::signbit(want)) << c.name << " 0x" << std::hex << bits;
    ASSERT_EQ(c.sdk_encode(got), bits) << c.name << " 0x" << std::hex << bits;
    ++checked;
  }
  EXPECT_GT(checked, (1 << c.bits) - 4096);
}

TEST_P(NumberCodecs, EveryRoundingBoundaryRoundsAsTheHarnessDoes) {
  const Codec& c = GetParam();
  // The non-negative finite values in order (the patterns below the sign bit, NaN/inf left out).
  std::vector<float> grid;
  for (uint32_t bits = 0; bits < (1u << (c.bits - 1)); ++bits) {
    const float v = c.sdk_decode(bits);
    if (std::isfinite(v)) grid.push_back(v);
  }
  // Past the largest finite value: where the next value would be, and where a midpoint to it lies.
  const float top = grid.back(), step = grid.back() - grid[grid.size() - 2];
  grid.push_back(top + step);
  grid.push_back(top + 2 * step);
  int64_t boundaries = 0;
  for (std::size_t i = 0; i + 1 < grid.size(); ++i) {
    const float mid = grid[i] + (grid[i + 1] - grid[i]) / 2;  // exact: the formats are far narrower than fp32
    for (float x : {mid, std::nextafter(mid, 0.0f), std::nextafter(mid, INFINITY)}) {
      for (float v : {x, -x}) {
        ASSERT_EQ(c.sdk_encode(v), c.harness_encode(static_cast<double>(v)))
            << c.name << ": " << v << " between " << grid[i] << " and " << grid[i + 1];
      }
    }
    ++boundaries;
  }
  for (float v : {INFINITY, -INFINITY, std::numeric_limits<float>::max(), -std::numeric_limits<float>::max(),
                  std::numeric_limits<float>::denorm_min(), std::numeric_limits<float>::quiet_NaN()})
    EXPECT_EQ(c.sdk_encode(v), c.harness_encode(static_cast<double>(v))) << c.name << ": " << v;
  EXPECT_GT(boundaries, (1 << (c.bits - 1)) - 2048);
}

INSTANTIATE_TEST_SUITE_P(Sdk, NumberCodecs, ::testing::ValuesIn(codecs()),
                         [](const auto& info) { return std::string(info.param.name); });

TEST(NumberCodecsInt8, HalvesRoundToEvenAndTheRangeSaturatesAsTheHarnessDoes) {
  for (int twice = -600; twice <= 600; ++twice) {
    const float half = static_cast<float>(twice) / 2.0f;
    for (float v : {half, std::nextafter(half, -INFINITY), std::nextafter(half, INFINITY)}) {
      int8_t want = 0;
      store_as(OPCERT_DTYPE_I8, static_cast<double>(v), &want);
      ASSERT_EQ(sdk::f32_to_int8(v), want) << v;
    }
  }
  EXPECT_EQ(sdk::f32_to_int8(NAN), 0);
  EXPECT_EQ(sdk::f32_to_int8(INFINITY), 127);
  EXPECT_EQ(sdk::f32_to_int8(-INFINITY), -128);
}

TEST(NumberCodecsStore, StoreAndLoadGoThroughTheCodecOfEachDtype) {
  for (int32_t dtype : {OPCERT_DTYPE_F32, OPCERT_DTYPE_F16, OPCERT_DTYPE_BF16, OPCERT_DTYPE_F8_E4M3FN, OPCERT_DTYPE_F8_E5M2,
                        OPCERT_DTYPE_I8}) {
    alignas(4) unsigned char buffer[8] = {};
    for (float v : {0.0f, 1.0f, -2.5f, 3.14159f, 100.7f, 1000.0f}) {
      sdk::store_f32_as(dtype, buffer, 1, v);
      EXPECT_EQ(static_cast<double>(sdk::load_as_f32(dtype, buffer, 1)), round_to(static_cast<opcert_dtype>(dtype), v))
          << "dtype " << dtype << " value " << v;
    }
  }
}

}  // namespace
}  // namespace opcert
