#include "opkit/output_tolerance.h"

#include <cmath>

#include "model/scalar_codec.h"

namespace opcert {
namespace {

// |v| of the expected value rounded into the output dtype: the output rounding is measured
// against what the dtype can hold, not the exact value (they differ near overflow).
double rounded_abs(opcert_dtype dtype, double v) {
  const double r = round_to(dtype, v);
  return std::isfinite(r) ? std::fabs(r) : std::fabs(v);
}

}  // namespace

double OutputTolerance::bound(std::size_t k, double expected) const {
  return absolute(k) + relative * rounded_abs(dtype, expected);
}

double least_subnormal(opcert_dtype dtype) {
  switch (dtype) {
    case OPCERT_DTYPE_F64: return 4.9406564584124654e-324;
    case OPCERT_DTYPE_F32: return 1.4012984643248171e-45;
    case OPCERT_DTYPE_F16: return decode_fp16(1);
    case OPCERT_DTYPE_BF16: return decode_bf16(1);
    case OPCERT_DTYPE_F8_E4M3FN: return decode_fp8_e4m3fn(1);
    case OPCERT_DTYPE_F8_E5M2: return decode_fp8_e5m2(1);
    default: return 0.0;
  }
}

}  // namespace opcert
