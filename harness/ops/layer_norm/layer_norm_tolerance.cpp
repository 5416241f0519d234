// The bounds of layer_norm's outputs (docs/TOLERANCES.md#layer_norm): the norms' shared derivation.
#include "ops/common/norm_tolerance.h"
#include "ops/layer_norm/layer_norm.h"

namespace opcert::ops::layer_norm {

void derive_tolerance(const Case& c, const ReferenceOutput& ref, OutputTolerance& t) { common::norm_tolerance(c, ref, t, /*row_statistics_in_t=*/true); }

}  // namespace opcert::ops::layer_norm
