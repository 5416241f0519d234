// gemm (docs/OPS.md#gemm): c[M,N] = a[M,K] · b[N,K]ᵀ (+ bias[N]) in fp32/fp16/bf16 with fp32
// accumulation; b may be given [K, N]; fp32 may opt in to TF32 input rounding (allow_tf32).
// What the harness knows of it, one file each: the parameters and case builder (gemm_spec.cpp),
// the golden reference (gemm_reference.cpp), the tolerance (gemm_tolerance.cpp), the work model
// (gemm_work.cpp), and the descriptor that registers them (gemm_op.cpp). The operands' names
// are the SDK's (opcert/sdk/ops/gemm.h), the one contract backends parse calls with.
#pragma once

#include <opcert/sdk/ops/gemm.h>

#include "opkit/op_descriptor.h"

namespace opcert::ops::gemm {

using namespace opcert::opkit;
namespace names = sdk::gemm_names;

std::span<const ParamDef> parameters();
void build_case(const json& params, Case& c);
void derive_tolerance(const Case& c, const ReferenceOutput& ref, OutputTolerance& t);
WorkModel work(const Case& c);

}  // namespace opcert::ops::gemm
