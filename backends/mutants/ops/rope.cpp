// The mutants of rope: each rotary pair rotated by its position's cos and sin in fp64, and its defects.
#include <opcert/sdk/ops/rope.h>

#include <utility>
#include <vector>

#include "mutant_op.h"
#include "naive_values.h"

namespace opcert::mutants {
namespace {

using sdk::Tensor;

// This file's own defects (defect.h holds those that several ops share).
constexpr Defect kWrongStyle = own_defect(0);          // split_half pairs rotated where interleaved ones were asked, and back
constexpr Defect kPositionsIgnored = own_defect(1);    // each token's index used though positions are given
constexpr Defect kMissingRotaryPair = own_defect(2);   // the last rotary pair left unrotated

void naive_rope(const sdk::RopeOperands& r, Defect defect) {
  const Tensor &cos = *r.cos, &sin = *r.sin;
  const auto& positions = r.positions;
  const bool interleaved = (r.style == sdk::RopeStyle::kInterleaved) != (defect == kWrongStyle);
  const bool use_positions = positions && defect != kPositionsIgnored;
  for (const auto& [x, out] : {std::pair{r.q, r.q_out}, std::pair{r.k, r.k_out}}) {
    if (!x) continue;
    const int64_t D = r.head_dim, H = x->dim(-2), R = r.rotary_dim, half = r.half();
    const int64_t tokens = r.tokens, S = r.seq_len;
    for (int64_t tok = 0; tok < tokens; ++tok) {
      const auto p = static_cast<int64_t>(use_positions ? ld(*positions, tok) : static_cast<double>(tok % S));
      for (int64_t h = 0; h < H; ++h) {
        const int64_t base = (tok * H + h) * D;
        for (int64_t d = R; d < D; ++d) st(*out, base + d, ld(*x, base + d));
        for (int64_t i = 0; i < half; ++i) {
          const int64_t i1 = interleaved ? 2 * i : i, i2 = interleaved ? 2 * i + 1 : i + half;
          const double x1 = ld(*x, base + i1), x2 = ld(*x, base + i2);
          if (defect == kMissingRotaryPair && i == half - 1) {
            st(*out, base + i1, x1);
            st(*out, base + i2, x2);
            continue;
          }
          const double c = ld(cos, p * half + i), s = ld(sin, p * half + i);
          st(*out, base + i1, x1 * c - x2 * s, defect);
          st(*out, base + i2, x2 * c + x1 * s, defect);
        }
      }
    }
  }
}

std::vector<sdk::Implementation> rope_mutants() {
  return mutant_variants<sdk::RopeOperands>({"rope", sdk::parse_rope, naive_rope, nullptr,
      {{Defect::kNone, "correct"},
       {kMissingRotaryPair, "missing_rotary_pair"},
       {kWrongStyle, "wrong_style"},
       {kPositionsIgnored, "positions_ignored"},
       {Defect::kHalfAwayOutput, "half_away_output"},
       {Defect::kTruncatedOutput, "truncated_output"}}});
}

}  // namespace

OPCERT_REGISTER_IMPLEMENTATIONS(MutantImplementations, "rope", rope_mutants)

}  // namespace opcert::mutants
