// softmax's entry in the op table.
#include "ops/softmax/softmax.h"
#include "opkit/op_registry.h"

namespace opcert::ops::softmax {
namespace {

const OpDescriptor kSoftmax{
    .name = names::kOp,
    .family = OpFamily::kCompute,
    .order = 90,
    .summary = "softmax over the last dimension, fp32 math",
    .params = parameters,
    .build = build_case,
    .tolerance = derive_tolerance,
    .work = work,
};

}  // namespace

OPCERT_REGISTER_OP(kSoftmax)

}  // namespace opcert::ops::softmax
