// toy_scale's bound: one product rounded into the output dtype, so the preset 2u|y| and no more.
#include "toy_scale.h"

namespace opcert::ops::toy_scale {

void derive_tolerance(const Case&, const ReferenceOutput&, OutputTolerance& t) {
  const double floor = least_subnormal(t.dtype);
  t.absolute = [=](std::size_t) { return floor; };
}

}  // namespace opcert::ops::toy_scale
