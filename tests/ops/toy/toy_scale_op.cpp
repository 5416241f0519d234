// toy_scale's entry in the op table.
#include "opkit/op_registry.h"
#include "toy_scale.h"
#include "toy_scale_operands.h"

namespace opcert::ops::toy_scale {
namespace {

const OpDescriptor kToyScale{
    .name = sdk::toy_scale_names::kOp,
    .family = OpFamily::kCompute,
    .order = 1000,
    .summary = "test only: y = alpha x",
    .params = parameters,
    .build = build_case,
    .tolerance = derive_tolerance,
    .work = work,
};

}  // namespace

OPCERT_REGISTER_OP(kToyScale)

}  // namespace opcert::ops::toy_scale
