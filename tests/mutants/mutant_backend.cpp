#include "mutant_backend.h"

#include <opcert/sdk/backend.h>

#include <string>

#include "naive_ops.h"

namespace opcert::mutants {
namespace {

using OpFn = void (*)(const sdk::OpCall&, Defect);

struct Variant {
  const char* op;
  OpFn fn;
  Defect defect;
  const char* name;
};

constexpr Variant kVariants[] = {
    {"gemm", gemm, Defect::kNone, "correct"},
    {"gemm", gemm, Defect::kBf16Accumulation, "bf16_accumulation"},
    {"gemm", gemm, Defect::kWritePastEnd, "write_past_end"},
    {"gemm", gemm, Defect::kTf32Inputs, "tf32_inputs"},
    {"gemm", gemm, Defect::kBf16Inputs, "bf16_inputs"},
    {"gemm_fp8", gemm_fp8, Defect::kNone, "correct"},
    {"gemm_fp8", gemm_fp8, Defect::kScaleDropped, "scale_dropped"},
    {"gemm_fp8", gemm_fp8, Defect::kBlockScaleTransposed, "block_scale_transposed"},
    {"gemm_int8", gemm_int8, Defect::kNone, "correct"},
    {"gemm_int8", gemm_int8, Defect::kScaleDropped, "scale_dropped"},
    {"quantize", quantize, Defect::kNone, "correct"},
    {"quantize", quantize, Defect::kWrongQuantMax, "wrong_qmax"},
    {"attention", attention, Defect::kNone, "correct"},
    {"attention", attention, Defect::kCausalOffByOne, "causal_off_by_one"},
    {"attention", attention, Defect::kWrongGqaMapping, "wrong_gqa_mapping"},
    {"rms_norm", rms_norm, Defect::kNone, "correct"},
    {"rms_norm", rms_norm, Defect::kWrongEps, "wrong_eps"},
    {"layer_norm", layer_norm, Defect::kNone, "correct"},
    {"layer_norm", layer_norm, Defect::kWrongEps, "wrong_eps"},
    {"rope", rope, Defect::kNone, "correct"},
    {"rope", rope, Defect::kMissingRotaryPair, "missing_rotary_pair"},
    {"softmax", softmax, Defect::kNone, "correct"},
    {"softmax", softmax, Defect::kWritePastEnd, "write_past_end"},
};

class MutantBackend : public sdk::Backend {
 public:
  MutantBackend() {
    for (const Variant& v : kVariants)
      add({.key = std::string("mutants.") + v.op + "." + v.name,
           .op = v.op,
           .description = v.defect == Defect::kNone ? "naive fp64, correct" : std::string("defect: ") + v.name,
           .query = [](const sdk::OpCall&) { return sdk::Support::yes(); },
           .run = [fn = v.fn, defect = v.defect](const sdk::OpCall& call) { fn(call, defect); }});
  }
  sdk::BackendInfo info() const override { return {"mutants", "1.0", "opcert tests", "deliberately broken ops"}; }
};

}  // namespace
}  // namespace opcert::mutants

OPCERT_SDK_DEFINE_BUILTIN(opcert_mutants_backend_get_api, opcert::mutants::MutantBackend)
