// quantize's outputs (docs/TOLERANCES.md#quantize): q must be the rounding of the ideal quotient
// (or a neighbour within fp32 noise of the scale, near a rounding boundary); the scale is
// amax / qmax in fp32, one rounding.
#include "model/scalar_codec.h"
#include "ops/quantize/quantize.h"

namespace opcert::ops::quantize {

void derive_tolerance(const Case&, const ReferenceOutput& ref, OutputTolerance& t) {
  if (ref.name == "q") {
    t.rule = OutputTolerance::Rule::kQuantizedCode;
    return;
  }
  const double floor = least_subnormal(t.dtype);
  t.relative = 2.0 * kAccumulationRoundoff;
  t.absolute = [=](std::size_t) { return floor; };
}

}  // namespace opcert::ops::quantize
