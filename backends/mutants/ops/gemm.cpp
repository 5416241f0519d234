// The mutants of gemm (fp32, fp16, bf16): C = A · Bᵀ (+ bias) summed in fp64, and its defects.
#include <opcert/sdk/ops/gemm.h>

#include <cmath>
#include <limits>
#include <vector>

#include "model/scalar_codec.h"
#include "mutant_op.h"
#include "naive_values.h"
#include "tf32_rounding.h"

namespace opcert::mutants {
namespace {

using sdk::Tensor;

// This file's own defects (defect.h holds those that several ops share).
constexpr Defect kLayoutIgnored = own_defect(0);      // b read as [N, K] whatever b_layout says
constexpr Defect kTf32Inputs = own_defect(1);         // a and b rounded to TF32 first (conforms only where allow_tf32 = 1)
constexpr Defect kBf16Inputs = own_defect(2);         // a and b rounded to bf16 first, coarser than allow_tf32 permits
constexpr Defect kBf16Accumulation = own_defect(3);   // the running sum rounded to bf16 after every product

void naive_gemm(const sdk::GemmOperands& g, Defect defect) {
  const Tensor &a = *g.a, &b = *g.b, &c = *g.c;
  const auto& bias = g.bias;
  const bool kn = g.b_layout == sdk::BLayout::kKN && defect != kLayoutIgnored;
  const int64_t M = g.m, K = g.k, N = g.n;
  const bool add_bias = bias && defect != Defect::kBiasDropped;
  const auto input = [defect](double v) {
    if (defect == kTf32Inputs) return test::round_to_tf32(v);
    if (defect == kBf16Inputs) return round_to(OPCERT_DTYPE_BF16, v);
    return v;
  };
  for (int64_t m = 0; m < M; ++m)
    for (int64_t n = 0; n < N; ++n) {
      double s = 0.0;
      for (int64_t k = 0; k < K; ++k) {
        s += input(ld(a, m * K + k)) * input(ld(b, kn ? k * N + n : n * K + k));
        if (defect == kBf16Accumulation) s = round_to(OPCERT_DTYPE_BF16, s);
      }
      st(c, m * N + n, s + (add_bias ? ld(*bias, n) : 0.0), defect);
    }
  if (defect == Defect::kWritePastEnd) st(c, M * N, 0.0);
  if (defect == Defect::kNanSpread && (any_non_finite(a) || any_non_finite(b)))
    for (int64_t i = 0; i < M * N; ++i) st(c, i, std::numeric_limits<double>::quiet_NaN());
}

std::vector<sdk::Implementation> gemm_mutants() {
  return mutant_variants<sdk::GemmOperands>({"gemm", sdk::parse_gemm, naive_gemm, nullptr,
      {{Defect::kNone, "correct"},
       {kBf16Accumulation, "bf16_accumulation"},
       {Defect::kWritePastEnd, "write_past_end"},
       {kTf32Inputs, "tf32_inputs"},
       {kBf16Inputs, "bf16_inputs"},
       {Defect::kBiasDropped, "bias_dropped"},
       {kLayoutIgnored, "layout_ignored"},
       {Defect::kTruncatedOutput, "truncated_output"},
       {Defect::kHalfAwayOutput, "half_away_output"},
       {Defect::kOddOutput, "odd_output"},
       {Defect::kNanSpread, "nan_spread"}}});
}

}  // namespace

OPCERT_REGISTER_IMPLEMENTATIONS(MutantImplementations, "gemm", gemm_mutants)

}  // namespace opcert::mutants
