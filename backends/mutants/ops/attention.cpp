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

// This file's own defects (defect.h holds those that several ops share).
constexpr Defect kScaleIgnored = own_defect(0);      // scores not scaled (scale 1 instead of the attribute or 1/sqrt(D))
constexpr Defect kDescaleIgnored = own_defect(1);    // q_descale, k_descale and v_descale ignored (codes taken as values)
constexpr Defect kVDescaleFromK = own_defect(2);     // v dequantized with k_descale instead of v_descale
constexpr Defect kWrongGqaMapping = own_defect(3);   // query head h reads kv head h % Hkv instead of h / group
constexpr Defect kCausalTopLeft = own_defect(4);     // the causal mask aligned top-left (j <= i), not bottom-right
constexpr Defect kCausalOffByOne = own_defect(5);    // each query also sees the next key
constexpr Defect kWindowOffByOne = own_defect(6);    // the sliding window one key narrower than window_left says

sdk::Support naive_attention_limits(const sdk::AttentionOperands& a) {
  if (a.varlen()) return sdk::Support::no("the naive attention takes BSHD only, not varlen");
  return sdk::Support::yes();
}

// The operands' elements are decoded once into fp64 (ld is exact): a query's row per query, a KV
// head's keys and values (the values transposed, [D, Skv]) per head. Each product and sum takes
// the same values in the same order as reading every element where it is used, so the outputs
// are the same bits, at a fraction of the codec calls: selftest's slowest part was this loop.
void naive_attention(const sdk::AttentionOperands& a, Defect defect) {
  const Tensor &q = *a.q, &k = *a.k, &v = *a.v, &o = *a.o;
  const auto& lse = a.lse;
  const int64_t B = a.batch, Sq = a.sq, Hq = a.hq, D = a.d, Skv = a.skv, Hkv = a.hkv;
  const double scale = defect == kScaleIgnored ? 1.0 : a.scale;
  const bool causal = a.causal;
  const int64_t window = a.window_left, group = a.group();
  const bool descaled = defect != kDescaleIgnored;
  const auto& v_descale = defect == kVDescaleFromK ? a.k_descale : a.v_descale;
  std::vector<double> keys_of_head(static_cast<std::size_t>(Skv * D)), values_by_dim(keys_of_head.size()),
      query(static_cast<std::size_t>(D));
  for (int64_t bi = 0; bi < B; ++bi)
    for (int64_t h = 0; h < Hq; ++h) {
      const int64_t kvh = defect == kWrongGqaMapping ? h % Hkv : h / group;
      // Dequantized exactly in fp64 (fp8 codes times their group's descale); 1 for other dtypes.
      const double qd = descaled ? descale_of(a.q_descale, bi, kvh, Hkv) : 1.0;
      const double kd = descaled ? descale_of(a.k_descale, bi, kvh, Hkv) : 1.0;
      const double vd = descaled ? descale_of(v_descale, bi, kvh, Hkv) : 1.0;
      for (int64_t j = 0; j < Skv; ++j)
        for (int64_t d = 0; d < D; ++d) {
          const int64_t at = ((bi * Skv + j) * Hkv + kvh) * D + d;
          keys_of_head[static_cast<std::size_t>(j * D + d)] = ld(k, at);
          values_by_dim[static_cast<std::size_t>(d * Skv + j)] = ld(v, at);
        }
      for (int64_t i = 0; i < Sq; ++i) {
        const int64_t diagonal = defect == kCausalTopLeft ? i : i + Skv - Sq + (defect == kCausalOffByOne ? 1 : 0);
        const int64_t narrower = defect == kWindowOffByOne ? 1 : 0;
        for (int64_t d = 0; d < D; ++d) query[static_cast<std::size_t>(d)] = ld(q, ((bi * Sq + i) * Hq + h) * D + d) * qd;
        std::vector<double> s;
        std::vector<int64_t> keys;
        for (int64_t j = 0; j < Skv; ++j) {
          if (causal && j > diagonal) continue;
          if (window >= 0 && j < i + Skv - Sq - window + narrower) continue;
          const double* key = keys_of_head.data() + j * D;
          double dot = 0.0;
          for (int64_t d = 0; d < D; ++d) dot += query[static_cast<std::size_t>(d)] * key[d] * kd;
          s.push_back(scale * dot);
          keys.push_back(j);
        }
        const double mx = s.empty() ? 0.0 : *std::max_element(s.begin(), s.end());
        double sum = 0.0;
        for (double& x : s) sum += (x = std::exp(x - mx));
        for (double& x : s) x /= sum;  // each weight once: s[j] / sum, as each term below had it
        for (int64_t d = 0; d < D; ++d) {
          const double* values = values_by_dim.data() + d * Skv;
          double acc = 0.0;
          for (std::size_t j = 0; j < keys.size(); ++j) acc += s[j] * values[keys[j]] * vd;
          st(o, ((bi * Sq + i) * Hq + h) * D + d, acc, defect);
        }
        if (lse) st(*lse, (bi * Hq + h) * Sq + i, keys.empty() ? -std::numeric_limits<double>::infinity() : mx + std::log(sum));
      }
    }
}

std::vector<sdk::Implementation> attention_mutants() {
  return mutant_variants<sdk::AttentionOperands>({"attention", sdk::parse_attention, naive_attention, naive_attention_limits,
      {{Defect::kNone, "correct"},
       {kCausalOffByOne, "causal_off_by_one"},
       {kWrongGqaMapping, "wrong_gqa_mapping"},
       {kScaleIgnored, "scale_ignored"},
       {kCausalTopLeft, "causal_top_left"},
       {kWindowOffByOne, "window_off_by_one"},
       {kDescaleIgnored, "descale_ignored"},
       {kVDescaleFromK, "v_descale_from_k"},
       {Defect::kTruncatedOutput, "truncated_output"}}});
}

}  // namespace

OPCERT_REGISTER_IMPLEMENTATIONS(MutantImplementations, "attention", attention_mutants)

}  // namespace opcert::mutants
