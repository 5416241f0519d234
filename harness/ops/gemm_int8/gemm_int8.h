// gemm_int8 (docs/OPS.md#gemm_int8): int8 × int8 with an exact int32 output, or dequantized to
// bf16/fp16 with per-token × per-channel scales (+ bias).
// What the harness knows of it, one file each: the parameters and case builder (gemm_int8_spec.cpp),
// the golden reference (gemm_int8_reference.cpp), the tolerance (gemm_int8_tolerance.cpp), the work model
// (gemm_int8_work.cpp), and the descriptor that registers them (gemm_int8_op.cpp). The operands' names
// are the SDK's (opcert/sdk/ops/gemm_int8.h), the one contract backends parse calls with.
#pragma once

#include <opcert/sdk/ops/gemm_int8.h>

#include "opkit/op_descriptor.h"

namespace opcert::ops::gemm_int8 {

using namespace opcert::opkit;
namespace names = sdk::gemm_int8_names;

std::span<const ParamDef> parameters();
void build_case(const json& params, Case& c);
void derive_tolerance(const Case& c, const ReferenceOutput& ref, OutputTolerance& t);
WorkModel work(const Case& c);

}  // namespace opcert::ops::gemm_int8
