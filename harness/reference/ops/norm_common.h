// Shared by rms_norm and layer_norm: operands, the fused residual add and row sampling.
#pragma once

#include <span>
#include <vector>

#include "reference/reference.h"

namespace opcert::reference_detail {

enum class NormKind { kRms, kLayer };

/// y (and residual_out when a residual is given) of rms_norm or layer_norm (docs/OPS.md).
std::vector<ReferenceOutput> norm_reference(const Case& c, std::span<const HostTensor> inputs, const SamplePlan& plan,
                                            NormKind kind, double default_eps);

}  // namespace opcert::reference_detail
