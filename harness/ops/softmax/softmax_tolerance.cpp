// The bound of softmax's output (docs/TOLERANCES.md#softmax).
#include <cmath>

#include "model/scalar_codec.h"
#include "ops/softmax/softmax.h"

namespace opcert::ops::softmax {

void derive_tolerance(const Case& c, const ReferenceOutput& ref, OutputTolerance& t) {
  const double floor = least_subnormal(t.dtype);
  const TensorSpec* x = c.find_input(names::kX);
  const auto n = static_cast<double>(x && !x->shape.empty() ? x->shape.back() : 1);
  const ReferenceOutput* r = &ref;
  // exp(x - max) carries the fp32 error of its argument (condition = max|x| + log N); the sum over
  // N adds about sqrt(N) roundings.
  t.absolute = [=](std::size_t i) {
    return floor + 4.0 * kAccumulationRoundoff * (r->condition_at(i) + std::sqrt(n) + 2.0) * r->magnitude_at(i);
  };
}

}  // namespace opcert::ops::softmax
