// attention (docs/OPS.md#attention): FlashAttention-style forward, BSHD or packed varlen with
// cu_seqlens; causal (bottom-right aligned), sliding window, GQA/MQA, optional lse.
// What the harness knows of it, one file each: the parameters and case builder (attention_spec.cpp),
// the golden reference (attention_reference.cpp), the tolerance (attention_tolerance.cpp), the work model
// (attention_work.cpp), and the descriptor that registers them (attention_op.cpp). The operands' names
// are the SDK's (opcert/sdk/ops/attention.h), the one contract backends parse calls with.
#pragma once

#include <opcert/sdk/ops/attention.h>

#include "opkit/op_descriptor.h"

namespace opcert::ops::attention {

using namespace opcert::opkit;
namespace names = sdk::attention_names;

std::span<const ParamDef> parameters();
void build_case(const json& params, Case& c);
void derive_tolerance(const Case& c, const ReferenceOutput& ref, OutputTolerance& t);
WorkModel work(const Case& c);

}  // namespace opcert::ops::attention
