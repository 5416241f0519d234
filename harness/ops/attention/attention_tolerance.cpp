// The bounds of attention's outputs (docs/TOLERANCES.md#attention, and "fp8 attention").
#include <algorithm>
#include <cmath>

#include "model/scalar_codec.h"
#include "ops/attention/attention.h"

namespace opcert::ops::attention {

void derive_tolerance(const Case& c, const ReferenceOutput& ref, OutputTolerance& t) {
  const double u = unit_roundoff(t.dtype);
  const double floor = least_subnormal(t.dtype);
  const TensorSpec* q = c.find_input(names::kQ);
  const TensorSpec* k = c.find_input(names::kK);
  const bool fp8 = q != nullptr && q->dtype == OPCERT_DTYPE_F8_E4M3FN;
  const auto d = static_cast<double>(q && !q->shape.empty() ? q->shape.back() : 1);
  const auto keys = static_cast<double>(k && k->shape.size() >= 3 ? k->shape[k->shape.size() - 3] : 1);
  // Both products (q·k, p·v) sum in fp32; FlashAttention-3 runs fp8 ones on Hopper's fp8 tensor
  // cores, which keep about 14 bits (as gemm_fp8).
  const double ua = fp8 ? kFp8TensorCoreRoundoff : kAccumulationRoundoff;
  // Scores may carry the input dtype's rounding (torch's math path rounds q·k to T) plus the
  // accumulation over D; a score error e moves the output by at most e * sum p|v - o|.
  // The scores' rounding is the inputs' dtype's, not the output's (lse is fp32 whatever T is).
  // fp8: q and k dequantized may be held in bf16 (the peer's decomposition), never coarser.
  const double u_in = fp8 ? unit_roundoff(OPCERT_DTYPE_BF16) : q ? unit_roundoff(q->dtype) : u;
  const double u_scores = std::max(u_in, kAccumulationRoundoff);
  // p may be rounded before p·v: to T (FlashAttention) with 2u, or for fp8 to e4m3 after a shift
  // by 2^8 (FlashAttention-3), u8 relative against the reference's floored magnitude.
  const double u_probabilities = fp8 ? unit_roundoff(OPCERT_DTYPE_F8_E4M3FN) : 2.0 * u;
  const ReferenceOutput* r = &ref;
  const auto score_error = [=](std::size_t i) { return (2.0 * u_scores + 2.0 * std::sqrt(d) * ua) * r->condition_at(i); };
  if (ref.name == names::kLse) {
    // lse sums the exponentials before any rounding of p, in fp32 also in FlashAttention-3.
    t.relative = 4.0 * kAccumulationRoundoff;
    t.absolute = [=](std::size_t i) { return score_error(i) + 4.0 * kAccumulationRoundoff * std::log2(keys + 1.0); };
  } else {
    t.absolute = [=](std::size_t i) {
      return floor + (u_probabilities + 2.0 * score_error(i) + 4.0 * std::sqrt(keys) * ua) * r->magnitude_at(i);
    };
    // The roundings to nearest (of scores, inputs, p) are unbiased: only the accumulations may lean.
    t.bias_noise = [=](std::size_t i) {
      const double accumulated_scores = 2.0 * std::sqrt(d) * ua * r->condition_at(i);
      return floor + (2.0 * accumulated_scores + 4.0 * std::sqrt(keys) * ua) * r->magnitude_at(i);
    };
  }
}

}  // namespace opcert::ops::attention
