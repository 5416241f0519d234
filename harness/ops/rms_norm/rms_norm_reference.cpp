// rms_norm: y = r / sqrt(mean(r^2) + eps) * weight, r = round(x + residual) or x
// (docs/OPS.md#rms_norm).
#include "ops/common/norm_reference.h"
#include "ops/rms_norm/rms_norm.h"

namespace opcert::ops::rms_norm {
namespace {

using common::NormKind;
using common::norm_reference;

std::vector<ReferenceOutput> reference(const Case& c, std::span<const HostTensor> inputs, const SamplePlan& plan) {
  return norm_reference(c, inputs, plan, NormKind::kRms, 1e-6);
}

}  // namespace

OPCERT_REGISTER_REFERENCE(names::kOp, reference)

}  // namespace opcert::ops::rms_norm
