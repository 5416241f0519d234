// Straightforward fp64 implementations of the ops, each with optional deliberate defects: the
// mutants that the comparison must catch (docs/TOLERANCES.md, calibration). Without a defect
// they are correct and serve as the control that passes on the same case.
#pragma once

#include <opcert/sdk/op_call.h>

namespace opcert::mutants {

enum class Defect {
  kNone,
  kBf16Accumulation,      // gemm: the running sum rounded to bf16 after every product
  kTf32Inputs,            // gemm: a and b rounded to TF32 first (conforms only where allow_tf32 = 1)
  kBf16Inputs,            // gemm: a and b rounded to bf16 first, coarser than allow_tf32 permits
  kWritePastEnd,          // gemm, softmax: one element written after the output
  kScaleDropped,          // gemm_fp8, gemm_int8: b_scale (gemm_int8: a_scale) ignored
  kBlockScaleTransposed,  // gemm_fp8 block scaling: b_scale read as [k block, n block]
  kCausalOffByOne,        // attention: each query also sees the next key
  kWrongGqaMapping,       // attention: query head h reads kv head h % Hkv instead of h / group
  kWrongEps,              // rms_norm, layer_norm: eps ten times too large
  kMissingRotaryPair,     // rope: the last rotary pair left unrotated
  kWrongQuantMax,         // quantize: int8 scaled by 128 instead of 127
};

void gemm(const sdk::OpCall& call, Defect defect);
void gemm_fp8(const sdk::OpCall& call, Defect defect);
void gemm_int8(const sdk::OpCall& call, Defect defect);
void quantize(const sdk::OpCall& call, Defect defect);
void attention(const sdk::OpCall& call, Defect defect);
void rms_norm(const sdk::OpCall& call, Defect defect);
void layer_norm(const sdk::OpCall& call, Defect defect);
void rope(const sdk::OpCall& call, Defect defect);
void softmax(const sdk::OpCall& call, Defect defect);

}  // namespace opcert::mutants
