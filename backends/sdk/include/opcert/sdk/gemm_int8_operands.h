// Moved: the gemm_int8 operand parser (parse_gemm_int8, GemmInt8Operands) lives in
// opcert/sdk/ops/gemm_int8.h. This header forwards there so that existing plugins still compile.
#pragma once

#include <opcert/sdk/ops/gemm_int8.h>
