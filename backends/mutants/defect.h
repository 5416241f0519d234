// The defects of the mutant backend: each a slip an author who misread docs/OPS.md might make,
// named once here because several ops share some (the output rounding ones, a dropped bias, a
// write past the end); each op's file (ops/) says which of them it has as variants.
#pragma once

namespace opcert::mutants {

enum class Defect {
  kNone,
  kBf16Accumulation,      // gemm: the running sum rounded to bf16 after every product
  kTf32Inputs,            // gemm: a and b rounded to TF32 first (conforms only where allow_tf32 = 1)
  kBf16Inputs,            // gemm: a and b rounded to bf16 first, coarser than allow_tf32 permits
  kWritePastEnd,          // gemm, softmax: one element written after the output
  kScaleDropped,          // gemm_fp8, gemm_int8: b_scale (gemm_int8: a_scale) ignored
  kInt16Accumulation,     // gemm_int8: a saturating 16-bit accumulator (clamped to int16 after every product)
  kFp32Accumulation,      // gemm_int8: the products summed in fp32 (inexact past 2^24)
  kRoundedBeforeScale,    // gemm_int8 (float out): the int32 sum rounded to the output dtype before scaling
  kPartialBlockScale,     // gemm_fp8 block scaling: a partial last K block takes the last full block's scales
  kNanSpread,             // gemm, softmax: a NaN or infinity anywhere in the inputs makes every output NaN
  kExpRounded,            // softmax: exp(x - max) stored in the output dtype between the passes
  kNonFiniteRowsZeroed,   // softmax: rows holding NaN or +inf come back as zeros
  kBlockScaleTransposed,  // gemm_fp8 block scaling: b_scale read as [k block, n block]
  kCausalOffByOne,        // attention: each query also sees the next key
  kWrongGqaMapping,       // attention: query head h reads kv head h % Hkv instead of h / group
  kWrongEps,              // rms_norm, layer_norm: eps ten times too large
  kMissingRotaryPair,     // rope: the last rotary pair left unrotated
  kWrongQuantMax,         // quantize: int8 scaled by 128 instead of 127
  kBiasDropped,           // gemm, gemm_fp8, gemm_int8 (float out): the bias never added
  kLayoutIgnored,         // gemm: b read as [N, K] whatever b_layout says
  kWrongGranularity,      // quantize: per-token codes scaled by the whole tensor's amax
  kScaleIgnored,          // attention: scores not scaled (scale 1 instead of the attribute or 1/sqrt(D))
  kCausalTopLeft,         // attention: the causal mask aligned top-left (j <= i), not bottom-right
  kWindowOffByOne,        // attention: the sliding window one key narrower than window_left says
  kDescaleIgnored,        // fp8 attention: q_descale, k_descale and v_descale ignored (codes taken as values)
  kVDescaleFromK,         // fp8 attention: v dequantized with k_descale instead of v_descale
  kWeightDropped,         // rms_norm, layer_norm: the weight never applied
  kMeanOffByOne,          // rms_norm: the mean of squares divided by H - 1
  kUnbiasedVariance,      // layer_norm: the variance divided by H - 1 (torch.var's default)
  kWrongStyle,            // rope: split_half pairs rotated where interleaved ones were asked, and back
  kPositionsIgnored,      // rope: each token's index used though positions are given
  kLastDropped,           // softmax: the last element left out of the row's sum
  kTruncatedOutput,       // every op: outputs rounded toward zero instead of to nearest even
  kHalfAwayOutput,        // every op: ties rounded away from zero (std::round) instead of to even
  kOddOutput,             // every op: inexact outputs rounded to the neighbour with an odd significand
};

}  // namespace opcert::mutants
