// The defects of the mutant backend: each a slip an author who misread docs/OPS.md might make.
// Here only those several ops' files share (a write past the end, a NaN spread, a dropped bias or
// scale, and the output roundings naive_values.h misrounds); each op's own defects are declared in
// its file (ops/<op>.cpp) with own_defect, so that a new op's mutants edit no list here.
#pragma once

namespace opcert::mutants {

enum class Defect : int {
  kNone,
  kWritePastEnd,       // gemm, softmax: one element written after the output
  kNanSpread,          // gemm, softmax: a NaN or infinity anywhere in the inputs makes every output NaN
  kBiasDropped,        // gemm, gemm_fp8, gemm_int8 (float out): the bias never added
  kScaleDropped,       // gemm_fp8, gemm_int8: b_scale (gemm_int8: a_scale) ignored
  kTruncatedOutput,    // every op: outputs rounded toward zero instead of to nearest even
  kHalfAwayOutput,     // every op: ties rounded away from zero (std::round) instead of to even
  kOddOutput,          // every op: inexact outputs rounded to the neighbour with an odd significand
  kFirstOwn = 100,     // an op's own defects start here (own_defect)
};

/// An op's own defect number n (0, 1, ...), declared in its file: apart from the shared ones above.
/// Two files' own defects may share a number, since an op's code is only handed its own variants
/// (mutant_variants refuses two variants of one op with the same defect).
constexpr Defect own_defect(int n) { return static_cast<Defect>(static_cast<int>(Defect::kFirstOwn) + n); }

}  // namespace opcert::mutants
