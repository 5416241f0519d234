// The bounds of the two norms' outputs (docs/TOLERANCES.md, rms_norm and layer_norm): y from fp32
// statistics over the row, residual_out from one rounding of an fp32 sum.
#pragma once

#include "opkit/op_descriptor.h"

namespace opcert::ops::common {

void norm_tolerance(const Case& c, const ReferenceOutput& ref, OutputTolerance& t);

}  // namespace opcert::ops::common
