// rms_norm (docs/OPS.md#rms_norm): y = r / sqrt(mean(r²) + eps) · weight, r = x (+ residual),
// fp32 math; with a residual it also returns r.
// What the harness knows of it, one file each: the parameters and case builder (rms_norm_spec.cpp),
// the golden reference (rms_norm_reference.cpp), the tolerance (rms_norm_tolerance.cpp), the work model
// (rms_norm_work.cpp), and the descriptor that registers them (rms_norm_op.cpp). The operands' names
// are the SDK's (opcert/sdk/ops/rms_norm.h), the one contract backends parse calls with.
#pragma once

#include <opcert/sdk/ops/rms_norm.h>

#include "opkit/op_descriptor.h"

namespace opcert::ops::rms_norm {

using namespace opcert::opkit;
namespace names = sdk::rms_norm_names;

std::span<const ParamDef> parameters();
void build_case(const json& params, Case& c);
void derive_tolerance(const Case& c, const ReferenceOutput& ref, OutputTolerance& t);
WorkModel work(const Case& c);

}  // namespace opcert::ops::rms_norm
