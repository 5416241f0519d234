#include "ops/common/norm_tolerance.h"

#include <opcert/sdk/ops/norm.h>

#include <cmath>

#include "model/scalar_codec.h"

namespace opcert::ops::common {

namespace norm = sdk::norm_names;  // the operands' names, the SDK's

void norm_tolerance(const Case& c, const ReferenceOutput& ref, OutputTolerance& t, bool row_statistics_in_t) {
  const double u = unit_roundoff(t.dtype);
  const double ua = kAccumulationRoundoff;
  const double floor = least_subnormal(t.dtype);
  const TensorSpec* x = c.find_input(norm::kX);
  const auto h = static_cast<double>(x && !x->shape.empty() ? x->shape.back() : 1);
  const ReferenceOutput* r = &ref;
  if (ref.name == norm::kResidualOut) {  // one rounding of an fp32 sum (2u: it may be rounded twice)
    t.relative = 2.0 * u;
    t.absolute = [=](std::size_t i) { return floor + ua * r->magnitude_at(i); };
    // Where fp32 holds the exact sum, the fp32 addition is exact: the rounding into T is decided,
    // ties included (two bf16 or fp16 addends of like size tie often).
    t.noise = [=](std::size_t i) {
      const double sum = r->values[i];
      return round_to(OPCERT_DTYPE_F32, sum) == sum ? 0.0 : ua * r->magnitude_at(i);
    };
    return;
  }
  // The mean of squares over H in fp32, then rsqrt and two products; plus two roundings into T of
  // intermediates (the normalised value, its product with the weight) before the bias is added,
  // as torch's CPU bf16 layer_norm does.
  const double growth = 2.0 * std::sqrt(h) + 8.0;
  t.absolute = [=](std::size_t i) { return floor + (growth * ua + 2.0 * u) * r->magnitude_at(i); };
  // The roundings into T of per-element intermediates are to nearest, so unbiased; but layer_norm
  // may hold its row's mean and deviation to T's precision (torch's CPU bf16 layer_norm does),
  // one error shared by the whole row, which leans a row's elements alike: then the test of
  // biased rounding takes whole rows as its units of chance.
  t.bias_noise = [=](std::size_t i) { return floor + growth * ua * r->magnitude_at(i); };
  if (row_statistics_in_t) t.bias_group = static_cast<std::size_t>(h);
}

}  // namespace opcert::ops::common
