// The mutants of gemm_int8: the exact int32 sum, dequantized in fp64 where asked, and its defects.
#include <opcert/sdk/ops/gemm_int8.h>

#include <algorithm>
#include <vector>

#include "model/scalar_codec.h"
#include "mutant_op.h"
#include "naive_values.h"

namespace opcert::mutants {
namespace {

using sdk::Tensor;

// This file's own defects (defect.h holds those that several ops share).
constexpr Defect kInt16Accumulation = own_defect(0);    // a saturating 16-bit accumulator (clamped to int16 after every product)
constexpr Defect kFp32Accumulation = own_defect(1);     // the products summed in fp32 (inexact past 2^24)
constexpr Defect kRoundedBeforeScale = own_defect(2);   // the int32 sum rounded to the output dtype before scaling

void naive_gemm_int8(const sdk::GemmInt8Operands& g, Defect defect) {
  const Tensor &a = *g.a, &b = *g.b, &c = *g.c;
  const auto &sa = g.a_scale, &sb = g.b_scale, &bias = g.bias;
  const int64_t M = g.m, K = g.k, N = g.n;
  for (int64_t m = 0; m < M; ++m)
    for (int64_t n = 0; n < N; ++n) {
      double acc = 0.0;
      for (int64_t k = 0; k < K; ++k) {
        acc += ld(a, m * K + k) * ld(b, n * K + k);
        if (defect == kInt16Accumulation) acc = std::clamp(acc, -32768.0, 32767.0);
        if (defect == kFp32Accumulation) acc = round_to(OPCERT_DTYPE_F32, acc);
      }
      if (!g.dequantize) {
        st(c, m * N + n, acc);
        continue;
      }
      const double scale_a = defect == Defect::kScaleDropped ? 1.0 : ld(*sa, m);
      if (defect == kRoundedBeforeScale) acc = round_to(static_cast<opcert_dtype>(c.dtype()), acc);
      st(c, m * N + n, scale_a * ld(*sb, n) * acc + (bias && defect != Defect::kBiasDropped ? ld(*bias, n) : 0.0), defect);
    }
}

std::vector<sdk::Implementation> gemm_int8_mutants() {
  return mutant_variants<sdk::GemmInt8Operands>({"gemm_int8", sdk::parse_gemm_int8, naive_gemm_int8, nullptr,
      {{Defect::kNone, "correct"},
       {Defect::kScaleDropped, "scale_dropped"},
       {Defect::kBiasDropped, "bias_dropped"},
       {Defect::kHalfAwayOutput, "half_away_output"},
       {kInt16Accumulation, "int16_accumulation"},
       {kFp32Accumulation, "fp32_accumulation"},
       {kRoundedBeforeScale, "rounded_before_scale"}}});
}

}  // namespace

OPCERT_REGISTER_IMPLEMENTATIONS(MutantImplementations, "gemm_int8", gemm_int8_mutants)

}  // namespace opcert::mutants
