// The golden reference of the two norms (harness/ops/rms_norm, harness/ops/layer_norm): operands, the fused residual add and row sampling.
#pragma once

#include <span>
#include <vector>

#include "reference/reference.h"

namespace opcert::ops::common {

enum class NormKind { kRms, kLayer };

/// y (and residual_out when a residual is given) of rms_norm or layer_norm (docs/OPS.md).
std::vector<ReferenceOutput> norm_reference(const Case& c, std::span<const HostTensor> inputs, const SamplePlan& plan,
                                            NormKind kind, double default_eps);

}  // namespace opcert::ops::common
