// The bound of rope's outputs (docs/TOLERANCES.md#rope): two products and a sum in fp32 per
// element, measured against |x1·cos| + |x2·sin|.
#include "model/scalar_codec.h"
#include "ops/rope/rope.h"

namespace opcert::ops::rope {

void derive_tolerance(const Case& c, const ReferenceOutput& ref, OutputTolerance& t) {
  const double floor = least_subnormal(t.dtype);
  if (c.fill_mode == FillMode::kRounding) {  // integer products and their sum are exact in fp32
    t.absolute = [=](std::size_t) { return floor; };
    t.noise = [](std::size_t) { return 0.0; };
    return;
  }
  const ReferenceOutput* r = &ref;
  t.absolute = [=](std::size_t i) { return floor + 4.0 * kAccumulationRoundoff * r->magnitude_at(i); };
}

}  // namespace opcert::ops::rope
