// What TF32 tensor cores do to an fp32 input (docs/OPS.md#gemm, allow_tf32): keep 10
// of its 23 explicit mantissa bits, rounding to nearest with ties away from zero as cuBLAS does.
// Used to build the GEMMs a conforming TF32 backend may return.
#pragma once

#include <cstdint>
#include <cstring>

namespace opcert::test {

/// `value` (an fp32 value) rounded to TF32. NaN and infinities are returned unchanged.
inline double round_to_tf32(double value) {
  const auto f = static_cast<float>(value);
  uint32_t bits = 0;
  std::memcpy(&bits, &f, sizeof bits);
  if ((bits & 0x7F800000u) == 0x7F800000u) return value;
  bits += 0x1000u;  // half of the 13 dropped bits: a tie rounds away from zero (a carry moves to the next binade)
  bits &= ~0x1FFFu;
  float rounded = 0;
  std::memcpy(&rounded, &bits, sizeof rounded);
  return rounded;
}

}  // namespace opcert::test
