#include "fp8_codec.h"

#include <opcert/backend_abi.h>

#include <array>
#include <cmath>
#include <limits>

#include "torch_version.h"

namespace opcert::torch_backend {
namespace {

// The layout of one fp8 format.
struct Format {
  int man_bits;
  int bias;
  float max_finite;
  bool ieee;  // e5m2: infinities and IEEE overflow; e4m3fn: no infinity, saturate
};

constexpr Format kE4M3 = {3, 7, 448.0f, false};
constexpr Format kE5M2 = {2, 15, 57344.0f, true};

const Format& format_of(int32_t dtype) { return dtype == OPCERT_DTYPE_F8_E5M2 ? kE5M2 : kE4M3; }

#if OPCERT_TORCH_AT_LEAST(2, 1)
at::ScalarType native_fp8(int32_t dtype) {
  return dtype == OPCERT_DTYPE_F8_E5M2 ? at::kFloat8_e5m2 : at::kFloat8_e4m3fn;
}
#endif

}  // namespace

float fp8_decode(uint8_t code, int32_t dtype) {
  const Format& f = format_of(dtype);
  const int exp_bits = 7 - f.man_bits;
  const int exp_mask = (1 << exp_bits) - 1;
  const int man_mask = (1 << f.man_bits) - 1;
  const float sign = (code & 0x80) ? -1.0f : 1.0f;
  const int e = (code >> f.man_bits) & exp_mask;
  const int m = code & man_mask;
  if (f.ieee && e == exp_mask) return m == 0 ? sign * std::numeric_limits<float>::infinity() : std::numeric_limits<float>::quiet_NaN();
  if (!f.ieee && e == exp_mask && m == man_mask) return std::numeric_limits<float>::quiet_NaN();
  if (e == 0) return sign * std::ldexp(static_cast<float>(m), 1 - f.bias - f.man_bits);
  return sign * std::ldexp(static_cast<float>(m + (1 << f.man_bits)), e - f.bias - f.man_bits);
}

uint8_t fp8_encode(float x, int32_t dtype) {
  const Format& f = format_of(dtype);
  const uint8_t sign = std::signbit(x) ? 0x80 : 0x00;
  const uint8_t nan_code = f.ieee ? 0x7E : 0x7F;
  const uint8_t inf_code = 0x7C;                                                     // e5m2 only
  const uint8_t max_code = f.ieee ? 0x7B : 0x7E;
  if (std::isnan(x)) return sign | nan_code;
  const double a = std::fabs(static_cast<double>(x));
  if (std::isinf(x)) return sign | (f.ieee ? inf_code : max_code);
  if (a == 0.0) return sign;
  const int min_exp = 1 - f.bias;  // exponent of the smallest normal
  int e2 = 0;
  std::frexp(a, &e2);             // a = frac * 2^e2, frac in [0.5, 1)
  const int e = std::max(e2 - 1, min_exp);
  const double quantum = std::ldexp(1.0, e - f.man_bits);
  const double q = std::nearbyint(a / quantum);  // ties to even (default rounding mode)
  const double v = q * quantum;
  if (v > f.max_finite) return sign | (f.ieee ? inf_code : max_code);
  if (v < std::ldexp(1.0, min_exp)) return sign | static_cast<uint8_t>(q);  // subnormal (or zero)
  int ve = 0;
  const double frac = std::frexp(v, &ve);  // v = frac * 2^ve; value = (1 + m/2^man) * 2^(ve-1)
  const int mant = static_cast<int>(std::ldexp(frac * 2.0 - 1.0, f.man_bits));
  return sign | static_cast<uint8_t>(((ve - 1 + f.bias) << f.man_bits) | mant);
}

at::Tensor fp8_to_float(const at::Tensor& bytes, int32_t dtype) {
#if OPCERT_TORCH_AT_LEAST(2, 1)
  return bytes.view(native_fp8(dtype)).to(at::kFloat);
#else
  std::array<float, 256> table{};
  for (int c = 0; c < 256; ++c) table[c] = fp8_decode(static_cast<uint8_t>(c), dtype);
  const at::Tensor lut = at::from_blob(table.data(), {256}, at::kFloat).to(bytes.device());  // copies
  return lut.index_select(0, bytes.reshape({-1}).to(at::kLong)).view(bytes.sizes());
#endif
}

at::Tensor fp8_to(const at::Tensor& bytes, int32_t dtype, at::ScalarType type) {
#if OPCERT_TORCH_AT_LEAST(2, 1)
  return bytes.view(native_fp8(dtype)).to(type);
#else
  return fp8_to_float(bytes, dtype).to(type);
#endif
}

at::Tensor float_to_fp8(const at::Tensor& x, int32_t dtype, bool in_range) {
#if OPCERT_TORCH_AT_LEAST(2, 1)
  // torch's fp8 cast does not saturate (e4m3fn overflow becomes NaN): clamp first, as the
  // contract saturates; NaN passes clamp unchanged.
  const float max = format_of(dtype).max_finite;
  at::Tensor v = x.to(at::kFloat);
  if (dtype == OPCERT_DTYPE_F8_E4M3FN && !in_range) v = v.clamp(-max, max);
  return v.to(native_fp8(dtype)).view(at::kByte);
#else
  (void)in_range;
  const at::Tensor host = x.to(at::kCPU, at::kFloat).contiguous();
  at::Tensor codes = at::empty(host.sizes(), at::kByte);
  const float* src = host.data_ptr<float>();
  uint8_t* dst = codes.data_ptr<uint8_t>();
  for (int64_t i = 0, n = host.numel(); i < n; ++i) dst[i] = fp8_encode(src[i], dtype);
  return codes.to(x.device());
#endif
}

}  // namespace opcert::torch_backend
