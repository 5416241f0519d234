// softmax (docs/OPS.md#softmax): softmax over the last dimension, fp32 math.
// What the harness knows of it, one file each: the parameters and case builder (softmax_spec.cpp),
// the golden reference (softmax_reference.cpp), the tolerance (softmax_tolerance.cpp), the work model
// (softmax_work.cpp), and the descriptor that registers them (softmax_op.cpp). The operands' names
// are the SDK's (opcert/sdk/ops/softmax.h), the one contract backends parse calls with.
#pragma once

#include <opcert/sdk/ops/softmax.h>

#include "opkit/op_descriptor.h"

namespace opcert::ops::softmax {

using namespace opcert::opkit;
namespace names = sdk::softmax_names;

std::span<const ParamDef> parameters();
void build_case(const json& params, Case& c);
void derive_tolerance(const Case& c, const ReferenceOutput& ref, OutputTolerance& t);
WorkModel work(const Case& c);

}  // namespace opcert::ops::softmax
