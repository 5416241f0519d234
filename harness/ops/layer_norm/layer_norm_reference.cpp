// layer_norm: y = (r - mu) / sqrt(var + eps) * weight + bias, biased variance, r as in rms_norm
// (docs/OPS.md#layer_norm).
#include "ops/common/norm_reference.h"
#include "ops/layer_norm/layer_norm.h"

namespace opcert::ops::layer_norm {
namespace {

using common::NormKind;
using common::norm_reference;

std::vector<ReferenceOutput> reference(const Case& c, std::span<const HostTensor> inputs, const SamplePlan& plan) {
  return norm_reference(c, inputs, plan, NormKind::kLayer, 1e-5);
}

}  // namespace

OPCERT_REGISTER_REFERENCE(names::kOp, reference)

}  // namespace opcert::ops::layer_norm
