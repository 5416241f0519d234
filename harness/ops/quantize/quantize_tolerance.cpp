// quantize's outputs (docs/TOLERANCES.md#quantize): q must be the rounding of the ideal quotient
// (or a neighbour within fp32 noise of the scale, near a rounding boundary); the scale is
// amax / qmax in fp32, one rounding.
#include <cmath>

#include "model/scalar_codec.h"
#include "ops/quantize/quantize.h"

namespace opcert::ops::quantize {

void derive_tolerance(const Case& c, const ReferenceOutput& ref, OutputTolerance& t) {
  if (ref.name == names::kQ) {
    t.rule = OutputTolerance::Rule::kQuantizedCode;
    if (c.fill_mode == FillMode::kRounding) {  // a power-of-two scale: the quotient is exact
      t.noise = [](std::size_t) { return 0.0; };
      return;
    }
    // A backend may divide or multiply by a reciprocal, and hold a scale one fp32 ulp away: the
    // quotient moves by a few fp32 roundings.
    const ReferenceOutput* r = &ref;
    t.noise = [r](std::size_t i) { return 8.0 * kAccumulationRoundoff * std::fabs(r->values[i]); };
    return;
  }
  const double floor = least_subnormal(t.dtype);
  t.relative = 2.0 * kAccumulationRoundoff;
  t.absolute = [=](std::size_t) { return floor; };
  // amax / qmax may be taken as amax times fp32's 1/qmax, itself rounded (torch and the CUDA
  // backend do): a rounding before the last one, and the same for every row, so it may lean.
  const ReferenceOutput* r = &ref;
  t.noise = [=](std::size_t i) { return floor + kAccumulationRoundoff * std::fabs(r->values[i]); };
}

}  // namespace opcert::ops::quantize
