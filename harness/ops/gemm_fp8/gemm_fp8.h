// gemm_fp8 (docs/OPS.md#gemm_fp8): c[M,N] = (a[M,K] · b[N,K]ᵀ) scaled per tensor, per token ×
// per channel, or per 1×128 / 128×128 block, (+ bias[N]); e4m3/e5m2 inputs, bf16/fp16/fp32 output.
// What the harness knows of it, one file each: the parameters and case builder (gemm_fp8_spec.cpp),
// the golden reference (gemm_fp8_reference.cpp), the tolerance (gemm_fp8_tolerance.cpp), the work model
// (gemm_fp8_work.cpp), and the descriptor that registers them (gemm_fp8_op.cpp). The operands' names
// are the SDK's (opcert/sdk/ops/gemm_fp8.h), the one contract backends parse calls with.
#pragma once

#include <opcert/sdk/ops/gemm_fp8.h>

#include "opkit/op_descriptor.h"

namespace opcert::ops::gemm_fp8 {

using namespace opcert::opkit;
namespace names = sdk::gemm_fp8_names;

std::span<const ParamDef> parameters();
void build_case(const json& params, Case& c);
void derive_tolerance(const Case& c, const ReferenceOutput& ref, OutputTolerance& t);
WorkModel work(const Case& c);

}  // namespace opcert::ops::gemm_fp8
