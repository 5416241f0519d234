// The golden reference of the two norms (harness/ops/rms_norm, harness/ops/layer_norm): operands,
// the fused residual add and row sampling. Both normalise the rounded residual r = round(x +
// residual) as the contract says. y: magnitude |y| (layer_norm: (|r| + mean|r|) / sigma |w| + |b|);
// residual_out: the exact x + residual, magnitude |x| + |residual|; no condition.
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
