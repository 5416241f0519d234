#include "naive_values.h"

#include <cmath>

#include "model/dtype.h"
#include "model/scalar_codec.h"

namespace opcert::mutants {
namespace {

// `v` rounded into `dtype` the way a rounding defect does; unchanged otherwise (store_as then
// rounds to nearest even, and leaves a value the defect already rounded as it is).
double misrounded(opcert_dtype dtype, double v, Defect defect) {
  if (!std::isfinite(v) || (defect != Defect::kTruncatedOutput && defect != Defect::kHalfAwayOutput && defect != Defect::kOddOutput))
    return v;
  const double spacing = grid_spacing(dtype, v), a = std::fabs(v);
  const double lo = std::floor(a / spacing) * spacing, hi = lo + spacing;
  double r = a;
  if (lo != a) {
    if (defect == Defect::kTruncatedOutput) r = lo;
    else if (defect == Defect::kHalfAwayOutput) r = a - lo >= hi - a ? hi : lo;
    else r = std::fmod(lo / spacing, 2.0) == 1.0 ? lo : hi;
  }
  return std::copysign(r, v);
}

}  // namespace

double ld(const sdk::Tensor& t, int64_t i) {
  const auto dtype = static_cast<opcert_dtype>(t.dtype());
  return load_from(dtype, t.data<char>() + i * static_cast<int64_t>(dtype_bytes(dtype)));
}

void st(const sdk::Tensor& t, int64_t i, double v, Defect defect) {
  const auto dtype = static_cast<opcert_dtype>(t.dtype());
  store_as(dtype, misrounded(dtype, v, defect), t.data<char>() + i * static_cast<int64_t>(dtype_bytes(dtype)));
}

bool any_non_finite(const sdk::Tensor& t) {
  for (int64_t i = 0; i < t.numel(); ++i)
    if (!std::isfinite(ld(t, i))) return true;
  return false;
}

double descale_of(const std::optional<sdk::Tensor>& descale, int64_t b, int64_t g, int64_t hkv) {
  return descale ? ld(*descale, b * hkv + g) : 1.0;
}

}  // namespace opcert::mutants
