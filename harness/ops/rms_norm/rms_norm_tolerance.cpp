// The bounds of rms_norm's outputs (docs/TOLERANCES.md#rms_norm): the norms' shared derivation.
#include "ops/common/norm_tolerance.h"
#include "ops/rms_norm/rms_norm.h"

namespace opcert::ops::rms_norm {

void derive_tolerance(const Case& c, const ReferenceOutput& ref, OutputTolerance& t) { common::norm_tolerance(c, ref, t, /*row_statistics_in_t=*/false); }

}  // namespace opcert::ops::rms_norm
