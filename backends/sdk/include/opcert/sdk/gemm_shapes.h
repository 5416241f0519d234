// Moved: GemmDims and check_gemm_shapes live in opcert/sdk/ops/gemm_dims.h, beside the GEMM
// parsers (ops/gemm.h, ops/gemm_fp8.h, ops/gemm_int8.h). This header forwards there so that
// existing plugins still compile.
#pragma once

#include <opcert/sdk/ops/gemm_dims.h>
