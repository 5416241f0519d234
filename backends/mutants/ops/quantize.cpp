// The mutants of quantize: per-token or per-tensor amax / qmax in fp32, the codes rounded once, and its defects.
#include <opcert/sdk/ops/quantize.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "model/scalar_codec.h"
#include "mutant_op.h"
#include "naive_values.h"

namespace opcert::mutants {
namespace {

using sdk::Tensor;

// This file's own defects (defect.h holds those that several ops share).
constexpr Defect kWrongQuantMax = own_defect(0);      // int8 scaled by 128 instead of 127
constexpr Defect kWrongGranularity = own_defect(1);   // per-token codes scaled by the whole tensor's amax

void naive_quantize(const sdk::QuantizeOperands& g, Defect defect) {
  const Tensor &x = *g.x, &q = *g.q, &scale = *g.scale;
  const int64_t M = g.m, K = g.k;
  const bool per_tensor = g.granularity == sdk::QuantGranularity::kTensor;
  const double qmax_q = sdk::quantize_qmax(q.dtype());
  double qmax = qmax_q;
  if (defect == kWrongQuantMax && q.dtype() == OPCERT_DTYPE_I8) qmax = 128.0;
  const auto row_amax = [&](int64_t first, int64_t last) {
    double amax = 0.0;
    for (int64_t i = first; i < last; ++i) amax = std::max(amax, std::fabs(ld(x, i)));
    return amax;
  };
  const int64_t groups = per_tensor ? 1 : M, span = per_tensor ? M * K : K;
  const bool tensor_amax = per_tensor || defect == kWrongGranularity;
  for (int64_t g = 0; g < groups; ++g) {
    const double amax = tensor_amax ? row_amax(0, M * K) : row_amax(g * span, (g + 1) * span);
    const double s = round_to(OPCERT_DTYPE_F32, amax / qmax);
    st(scale, g, s);
    for (int64_t i = g * span; i < (g + 1) * span; ++i)
      st(q, i, s == 0.0 ? 0.0 : std::clamp(ld(x, i) / s, -qmax_q, qmax_q), defect);
  }
}

std::vector<sdk::Implementation> quantize_mutants() {
  return mutant_variants<sdk::QuantizeOperands>({"quantize", sdk::parse_quantize, naive_quantize, nullptr,
      {{Defect::kNone, "correct"},
       {kWrongQuantMax, "wrong_qmax"},
       {kWrongGranularity, "wrong_granularity"},
       {Defect::kHalfAwayOutput, "half_away_codes"},
       {Defect::kTruncatedOutput, "truncated_codes"}}});
}

}  // namespace

OPCERT_REGISTER_IMPLEMENTATIONS(MutantImplementations, "quantize", quantize_mutants)

}  // namespace opcert::mutants
