// quantize's entry in the op table.
#include "ops/quantize/quantize.h"
#include "opkit/op_registry.h"

namespace opcert::ops::quantize {
namespace {

const OpDescriptor kQuantize{
    .name = names::kOp,
    .family = OpFamily::kCompute,
    .order = 40,
    .summary = "dynamic per-token or per-tensor quantization to int8/fp8",
    .params = parameters,
    .build = build_case,
    .tolerance = derive_tolerance,
    .work = work,
};

}  // namespace

OPCERT_REGISTER_OP(kQuantize)

}  // namespace opcert::ops::quantize
