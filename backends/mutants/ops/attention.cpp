// The mutants of attention (BSHD only): softmax(scale · q kᵀ) v in fp64 over the causal and windowed keys, and its defects.
#include <opcert/sdk/ops/attention.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "mutant_op.h"
#include "naive_values.h"

namespace opcert::mutants {
namespace {

using sdk::Tensor;

sdk::Support naive_attention_limits(const sdk::AttentionOperands& a) {
  if (a.varlen()) return sdk::Support::no("the naive attention takes BSHD only, not varlen");
  return sdk::Support::yes();
}

void naive_attention(const sdk::AttentionOperands& a, Defect defect) {
  const Tensor &q = *a.q, &k = *a.k, &v = *a.v, &o = *a.o;
  const auto& lse = a.lse;
  const int64_t B = a.batch, Sq = a.sq, Hq = a.hq, D = a.d, Skv = a.skv, Hkv = a.hkv;
  const double scale = defect == Defect::kScaleIgnored ? 1.0 : a.scale;
  const bool causal = a.causal;
  const int64_t window = a.window_left, group = a.group();
  const bool descaled = defect != Defect::kDescaleIgnored;
  const auto& v_descale = defect == Defect::kVDescaleFromK ? a.k_descale : a.v_descale;
  for (int64_t bi = 0; bi < B; ++bi)
    for (int64_t h = 0; h < Hq; ++h) {
      const int64_t kvh = defect == Defect::kWrongGqaMapping ? h % Hkv : h / group;
      // Dequantized exactly in fp64 (fp8 codes times their group's descale); 1 for other dtypes.
      const double qd = descaled ? descale_of(a.q_descale, bi, kvh, Hkv) : 1.0;
      const double kd = descaled ? descale_of(a.k_descale, bi, kvh, Hkv) : 1.0;
      const double vd = descaled ? descale_of(v_descale, bi, kvh, Hkv) : 1.0;
      for (int64_t i = 0; i < Sq; ++i) {
        const int64_t diagonal = defect == Defect::kCausalTopLeft ? i : i + Skv - Sq + (defect == Defect::kCausalOffByOne ? 1 : 0);
        const int64_t narrower = defect == Defect::kWindowOffByOne ? 1 : 0;
        std::vector<double> s;
        std::vector<int64_t> keys;
        for (int64_t j = 0; j < Skv; ++j) {
          if (causal && j > diagonal) continue;
          if (window >= 0 && j < i + Skv - Sq - window + narrower) continue;
          double dot = 0.0;
          for (int64_t d = 0; d < D; ++d)
            dot += ld(q, ((bi * Sq + i) * Hq + h) * D + d) * qd * ld(k, ((bi * Skv + j) * Hkv + kvh) * D + d) * kd;
          s.push_back(scale * dot);
          keys.push_back(j);
        }
        const double mx = s.empty() ? 0.0 : *std::max_element(s.begin(), s.end());
        double sum = 0.0;
        for (double& x : s) sum += (x = std::exp(x - mx));
        for (int64_t d = 0; d < D; ++d) {
          double acc = 0.0;
          for (std::size_t j = 0; j < keys.size(); ++j) acc += s[j] / sum * ld(v, ((bi * Skv + keys[j]) * Hkv + kvh) * D + d) * vd;
          st(o, ((bi * Sq + i) * Hq + h) * D + d, acc, defect);
        }
        if (lse) st(*lse, (bi * Hq + h) * Sq + i, keys.empty() ? -std::numeric_limits<double>::infinity() : mx + std::log(sum));
      }
    }
}

std::vector<sdk::Implementation> attention_mutants() {
  return mutant_variants<sdk::AttentionOperands>({"attention", sdk::parse_attention, naive_attention, naive_attention_limits,
      {{Defect::kNone, "correct"},
       {Defect::kCausalOffByOne, "causal_off_by_one"},
       {Defect::kWrongGqaMapping, "wrong_gqa_mapping"},
       {Defect::kScaleIgnored, "scale_ignored"},
       {Defect::kCausalTopLeft, "causal_top_left"},
       {Defect::kWindowOffByOne, "window_off_by_one"},
       {Defect::kDescaleIgnored, "descale_ignored"},
       {Defect::kVDescaleFromK, "v_descale_from_k"},
       {Defect::kTruncatedOutput, "truncated_output"}}});
}

}  // namespace

OPCERT_REGISTER_IMPLEMENTATIONS(MutantImplementations, "attention", attention_mutants)

}  // namespace opcert::mutants
