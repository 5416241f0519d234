// layer_norm (docs/OPS.md#layer_norm): y = (r - mean) / sqrt(var + eps) · weight + bias,
// r = x (+ residual), fp32 math; with a residual it also returns r.
// What the harness knows of it, one file each: the parameters and case builder (layer_norm_spec.cpp),
// the golden reference (layer_norm_reference.cpp), the tolerance (layer_norm_tolerance.cpp), the work model
// (layer_norm_work.cpp), and the descriptor that registers them (layer_norm_op.cpp). The operands' names
// are the SDK's (opcert/sdk/ops/layer_norm.h), the one contract backends parse calls with.
#pragma once

#include <opcert/sdk/ops/layer_norm.h>

#include "opkit/op_descriptor.h"

namespace opcert::ops::layer_norm {

using namespace opcert::opkit;
namespace names = sdk::layer_norm_names;

std::span<const ParamDef> parameters();
void build_case(const json& params, Case& c);
void derive_tolerance(const Case& c, const ReferenceOutput& ref, OutputTolerance& t);
WorkModel work(const Case& c);

}  // namespace opcert::ops::layer_norm
