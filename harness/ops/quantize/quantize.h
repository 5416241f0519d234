// quantize (docs/OPS.md#quantize): dynamic per-token or per-tensor quantization of x to int8 or
// fp8, q = round(x / scale) with scale = amax / qmax.
// What the harness knows of it, one file each: the parameters and case builder (quantize_spec.cpp),
// the golden reference (quantize_reference.cpp), the tolerance (quantize_tolerance.cpp), the work model
// (quantize_work.cpp), and the descriptor that registers them (quantize_op.cpp). The operands' names
// are the SDK's (opcert/sdk/ops/quantize.h), the one contract backends parse calls with.
#pragma once

#include <opcert/sdk/ops/quantize.h>

#include "opkit/op_descriptor.h"

namespace opcert::ops::quantize {

using namespace opcert::opkit;
namespace names = sdk::quantize_names;

std::span<const ParamDef> parameters();
void build_case(const json& params, Case& c);
void derive_tolerance(const Case& c, const ReferenceOutput& ref, OutputTolerance& t);
WorkModel work(const Case& c);

}  // namespace opcert::ops::quantize
