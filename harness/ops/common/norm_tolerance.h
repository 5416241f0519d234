// The bounds of the two norms' outputs (docs/TOLERANCES.md, rms_norm and layer_norm): y from fp32
// statistics over the row, residual_out from one rounding of an fp32 sum.
#pragma once

#include "opkit/op_descriptor.h"

namespace opcert::ops::common {

/// `row_statistics_in_t`: the op may hold a row's statistics (layer_norm's mean and deviation) to
/// the output dtype's precision, an error a whole row shares, so it may lean (rounding checks).
void norm_tolerance(const Case& c, const ReferenceOutput& ref, OutputTolerance& t, bool row_statistics_in_t);

}  // namespace opcert::ops::common
