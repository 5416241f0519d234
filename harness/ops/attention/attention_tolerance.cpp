// The bounds of attention's outputs (docs/TOLERANCES.md#attention).
#include <algorithm>
#include <cmath>

#include "model/scalar_codec.h"
#include "ops/attention/attention.h"

namespace opcert::ops::attention {

void derive_tolerance(const Case& c, const ReferenceOutput& ref, OutputTolerance& t) {
  const double u = unit_roundoff(t.dtype);
  const double ua = kAccumulationRoundoff;
  const double floor = least_subnormal(t.dtype);
  const TensorSpec* q = c.find_input("q");
  const TensorSpec* k = c.find_input("k");
  const auto d = static_cast<double>(q && !q->shape.empty() ? q->shape.back() : 1);
  const auto keys = static_cast<double>(k && k->shape.size() >= 3 ? k->shape[k->shape.size() - 3] : 1);
  // Scores may carry the input dtype's rounding (torch's math path rounds q·k to T) plus fp32
  // accumulation over D; a score error e moves the output by at most e * sum p|v - o|.
  // The scores' rounding is the inputs' dtype's, not the output's (lse is fp32 whatever T is).
  const double u_scores = std::max(q ? unit_roundoff(q->dtype) : u, ua);
  const ReferenceOutput* r = &ref;
  const auto score_error = [=](std::size_t i) { return (2.0 * u_scores + 2.0 * std::sqrt(d) * ua) * r->condition_at(i); };
  if (ref.name == "lse") {
    t.relative = 4.0 * ua;
    t.absolute = [=](std::size_t i) { return score_error(i) + 4.0 * ua * std::log2(keys + 1.0); };
  } else {
    // p may be rounded to T before p·v (FlashAttention does): another u * sum p|v|.
    t.absolute = [=](std::size_t i) {
      return floor + (2.0 * u + 2.0 * score_error(i) + 4.0 * std::sqrt(keys) * ua) * r->magnitude_at(i);
    };
    // The roundings to nearest into T (of scores, of p) are unbiased: only the fp32 parts may lean.
    t.bias_noise = [=](std::size_t i) {
      const double fp32_scores = 2.0 * std::sqrt(d) * ua * r->condition_at(i);
      return floor + (2.0 * fp32_scores + 4.0 * std::sqrt(keys) * ua) * r->magnitude_at(i);
    };
  }
}

}  // namespace opcert::ops::attention
