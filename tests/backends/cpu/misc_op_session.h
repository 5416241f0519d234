// Test helper for the CPU backend's softmax, norm, rope and attention tests: test-side dtype
// conversions (independent of the backend's) and the shared ABI session
// (backends/abi_test_session.h) on guarded host tensors that store values through them.
#pragma once

#include <opcert/backend_abi.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "backends/abi_test_session.h"

extern "C" const opcert_api* opcert_cpu_backend_get_api(void);

namespace opcert::test::cpumisc {

// ---- dtype conversions written from the IEEE / bfloat16 definitions ----------------------

inline double decode_fp16(uint16_t b) {
  const int sign = (b >> 15) ? -1 : 1;
  const int e = (b >> 10) & 31;
  const int m = b & 1023;
  if (e == 31) return m ? std::numeric_limits<double>::quiet_NaN() : sign * std::numeric_limits<double>::infinity();
  if (e == 0) return sign * std::ldexp(m, -24);
  return sign * std::ldexp(1024 + m, e - 25);
}

inline double decode_bf16(uint16_t b) {
  const uint32_t u = static_cast<uint32_t>(b) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

/// Rounds |x| (finite) to nearest even with `mant` significand bits (implicit one included),
/// minimum normal exponent `emin`; returns (biased exponent field, stored mantissa).
inline void round_binary(double a, int mant, int emin, int& exp_field, uint32_t& stored) {
  int e = emin;
  if (a >= std::ldexp(1.0, emin)) {
    int fe;
    std::frexp(a, &fe);
    e = fe - 1;
  }
  double m = std::nearbyint(std::ldexp(a, mant - 1 - e));  // significand in units of the ulp
  if (m >= std::ldexp(1.0, mant)) {
    m /= 2;
    ++e;
  }
  const bool normal = m >= std::ldexp(1.0, mant - 1);
  exp_field = normal ? e - emin + 1 : 0;
  stored = static_cast<uint32_t>(m) & ((1u << (mant - 1)) - 1);
}

inline uint16_t encode_fp16(double x) {
  if (std::isnan(x)) return 0x7e00;
  const uint16_t sign = std::signbit(x) ? 0x8000 : 0;
  const double a = std::fabs(x);
  if (a >= 65520.0) return sign | 0x7c00;
  int ef;
  uint32_t st;
  round_binary(a, 11, -14, ef, st);
  return static_cast<uint16_t>(sign | (ef << 10) | st);
}

inline uint16_t encode_bf16(double x) {
  if (std::isnan(x)) return 0x7fc0;
  const uint16_t sign = std::signbit(x) ? 0x8000 : 0;
  const double a = std::fabs(x);
  if (a >= std::ldexp(255.0 + 0.5, 120)) return sign | 0x7f80;  // halfway above the largest bf16
  int ef;
  uint32_t st;
  round_binary(a, 8, -126, ef, st);
  return static_cast<uint16_t>(sign | (ef << 7) | st);
}

// e4m3fn: 4 exponent bits (bias 7), 3 mantissa bits, no infinity; S.1111.111 is NaN, 448 the
// largest value (larger magnitudes saturate, as docs/OPS.md says).
inline double decode_e4m3(uint8_t b) {
  const int sign = (b >> 7) ? -1 : 1;
  const int e = (b >> 3) & 15;
  const int m = b & 7;
  if (e == 15 && m == 7) return std::numeric_limits<double>::quiet_NaN();
  if (e == 0) return sign * std::ldexp(m, -9);
  return sign * std::ldexp(8 + m, e - 10);
}

inline uint8_t encode_e4m3(double x) {
  if (std::isnan(x)) return 0x7f;
  const uint8_t sign = std::signbit(x) ? 0x80 : 0;
  const double a = std::fabs(x);
  if (a >= 448.0) return sign | 0x7e;
  int ef;
  uint32_t st;
  round_binary(a, 4, -6, ef, st);
  return static_cast<uint8_t>(sign | (ef << 3) | st);
}

inline const char* dtype_label(int32_t dtype) {
  switch (dtype) {
    case OPCERT_DTYPE_F32: return "fp32";
    case OPCERT_DTYPE_F16: return "fp16";
    case OPCERT_DTYPE_BF16: return "bf16";
    case OPCERT_DTYPE_I32: return "int32";
    case OPCERT_DTYPE_F8_E4M3FN: return "fp8_e4m3fn";
    default: return "other";
  }
}

/// Distance between adjacent values of dtype near |x|.
inline double ulp_of(int32_t dtype, double x) {
  const int mant = dtype == OPCERT_DTYPE_F32 ? 24 : dtype == OPCERT_DTYPE_F16 ? 11 : 8;
  const int emin = dtype == OPCERT_DTYPE_F32 ? -126 : dtype == OPCERT_DTYPE_F16 ? -14 : -126;
  int fe = emin + 1;
  if (std::fabs(x) >= std::ldexp(1.0, emin)) std::frexp(std::fabs(x), &fe);
  return std::ldexp(1.0, fe - mant);
}

// ---- host tensors and calls through the C ABI (backends/abi_test_session.h) ----------------

using abi::Attr;
using abi::Outcome;
using abi::Random;

/// Values stored and read with the conversions above (fp32, fp16, bf16, e4m3fn; int32 truncated).
struct TestCodec {
  static void store(int32_t dtype, double x, uint8_t* p) {
    if (dtype == OPCERT_DTYPE_F8_E4M3FN) {
      *p = encode_e4m3(x);
    } else if (dtype == OPCERT_DTYPE_F32) {
      const float f = static_cast<float>(x);
      std::memcpy(p, &f, 4);
    } else if (dtype == OPCERT_DTYPE_I32) {
      const auto v = static_cast<int32_t>(x);
      std::memcpy(p, &v, 4);
    } else {
      const uint16_t b = dtype == OPCERT_DTYPE_F16 ? encode_fp16(x) : encode_bf16(x);
      std::memcpy(p, &b, 2);
    }
  }
  static double load(int32_t dtype, const uint8_t* p) {
    if (dtype == OPCERT_DTYPE_F8_E4M3FN) return decode_e4m3(*p);
    if (dtype == OPCERT_DTYPE_F32) {
      float f;
      std::memcpy(&f, p, 4);
      return f;
    }
    if (dtype == OPCERT_DTYPE_I32) {
      int32_t v;
      std::memcpy(&v, p, 4);
      return v;
    }
    uint16_t b;
    std::memcpy(&b, p, 2);
    return dtype == OPCERT_DTYPE_F16 ? decode_fp16(b) : decode_bf16(b);
  }
};

/// A dense tensor in host memory with guard bytes, values through TestCodec.
using Tensor = abi::CodecTensor<TestCodec>;

/// One initialised CPU backend, driven through the opcert_api table.
class Session : public abi::HostSession<Tensor> {
 public:
  Session() : HostSession(opcert_cpu_backend_get_api()) {}
};

/// |got - want| within `ulps` units in the last place of the dtype at want, plus `rel` * mag
/// (the fp32-math allowance, scaled by the magnitude of the terms that made the value).
/// NaN must meet NaN and an infinity the same infinity.
inline bool close(int32_t dtype, double got, double want, double mag, double ulps = 1.0, double rel = 1e-5) {
  if (std::isnan(want)) return std::isnan(got);
  if (std::isinf(want)) return got == want;
  if (!std::isfinite(got)) return false;
  return std::fabs(got - want) <= ulps * ulp_of(dtype, want) + rel * mag;
}

inline const std::vector<int32_t>& float_dtypes() {
  static const std::vector<int32_t> all{OPCERT_DTYPE_F32, OPCERT_DTYPE_F16, OPCERT_DTYPE_BF16};
  return all;
}

}  // namespace opcert::test::cpumisc
