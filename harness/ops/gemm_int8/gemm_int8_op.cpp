// gemm_int8's entry in the op table.
#include "ops/gemm_int8/gemm_int8.h"
#include "opkit/op_registry.h"

namespace opcert::ops::gemm_int8 {
namespace {

const OpDescriptor kGemmInt8{
    .name = names::kOp,
    .family = OpFamily::kCompute,
    .order = 30,
    .summary = "int8 GEMM, int32 exact or dequantized output",
    .params = parameters,
    .build = build_case,
    .tolerance = derive_tolerance,
    .work = work,
};

}  // namespace

OPCERT_REGISTER_OP(kGemmInt8)

}  // namespace opcert::ops::gemm_int8
