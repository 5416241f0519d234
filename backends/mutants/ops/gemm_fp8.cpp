// The mutants of gemm_fp8: the fp8 codes times their tensor, channel or block scales, summed in fp64, and its defects.
#include <opcert/sdk/ops/gemm_fp8.h>

#include <algorithm>
#include <vector>

#include "mutant_op.h"
#include "naive_values.h"

namespace opcert::mutants {
namespace {

using sdk::Tensor;

// This file's own defects (defect.h holds those that several ops share).
constexpr Defect kPartialBlockScale = own_defect(0);      // a partial last K block takes the last full block's scales
constexpr Defect kBlockScaleTransposed = own_defect(1);   // b_scale read as [k block, n block]

void naive_gemm_fp8(const sdk::GemmFp8Operands& g, Defect defect) {
  const Tensor &a = *g.a, &b = *g.b, &sa = *g.a_scale, &sb = *g.b_scale, &c = *g.c;
  const auto& bias = g.bias;
  const int64_t M = g.m, K = g.k, N = g.n, block = g.block;
  const int64_t kb_count = (K + block - 1) / block, nb_count = (N + block - 1) / block;
  for (int64_t m = 0; m < M; ++m)
    for (int64_t n = 0; n < N; ++n) {
      double total = 0.0;
      for (int64_t kb = 0; kb < kb_count; ++kb) {
        double s = 0.0;
        for (int64_t k = kb * block; k < std::min(K, (kb + 1) * block); ++k) s += ld(a, m * K + k) * ld(b, n * K + k);
        double scale_a = 1.0, scale_b = 1.0;
        // K / block full blocks, the partial one's scales read from the last full block.
        const int64_t kb_scale = defect == kPartialBlockScale && K >= block ? std::min(kb, K / block - 1) : kb;
        if (g.scaling == sdk::Fp8Scaling::kTensor) {
          scale_a = ld(sa, 0);
          scale_b = ld(sb, 0);
        } else if (g.scaling == sdk::Fp8Scaling::kChannel) {
          scale_a = ld(sa, m);
          scale_b = ld(sb, n);
        } else {
          scale_a = ld(sa, m * kb_count + kb_scale);
          scale_b = defect == kBlockScaleTransposed ? ld(sb, kb * nb_count + n / block)
                                                            : ld(sb, (n / block) * kb_count + kb_scale);
        }
        if (defect == Defect::kScaleDropped) scale_b = 1.0;
        total += scale_a * scale_b * s;
      }
      st(c, m * N + n, total + (bias && defect != Defect::kBiasDropped ? ld(*bias, n) : 0.0), defect);
    }
}

std::vector<sdk::Implementation> gemm_fp8_mutants() {
  return mutant_variants<sdk::GemmFp8Operands>({"gemm_fp8", sdk::parse_gemm_fp8, naive_gemm_fp8, nullptr,
      {{Defect::kNone, "correct"},
       {Defect::kScaleDropped, "scale_dropped"},
       {kBlockScaleTransposed, "block_scale_transposed"},
       {kPartialBlockScale, "partial_block_scale"},
       {Defect::kBiasDropped, "bias_dropped"},
       {Defect::kTruncatedOutput, "truncated_output"}}});
}

}  // namespace

OPCERT_REGISTER_IMPLEMENTATIONS(MutantImplementations, "gemm_fp8", gemm_fp8_mutants)

}  // namespace opcert::mutants
