// Moved: the gemm_fp8 operand parser (parse_gemm_fp8, GemmFp8Operands) lives in
// opcert/sdk/ops/gemm_fp8.h. This header forwards there so that existing plugins still compile.
#pragma once

#include <opcert/sdk/ops/gemm_fp8.h>
