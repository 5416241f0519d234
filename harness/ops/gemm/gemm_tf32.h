// gemm's TF32 opt-in. TF32, the tensor-core operand format of fp32 GEMMs: fp32's 8-bit exponent with 10 explicit
// mantissa bits. A gemm case opts in with the attribute allow_tf32 = 1 (docs/OPS.md#gemm); the
// tolerance model then allows the inputs to be rounded to it (docs/TOLERANCES.md).
#pragma once

#include <string_view>

#include "model/case.h"

namespace opcert::ops::gemm {

/// Unit roundoff of TF32: 11 significant bits, rounded to nearest.
inline constexpr double kTf32UnitRoundoff = 0x1.0p-11;

/// The platform peak key of TF32 tensor-core math (configs' peaks.tflops).
inline constexpr std::string_view kTf32PeakKey = "tf32";

/// Whether gemm case `c` lets the backend round its fp32 inputs to TF32 (allow_tf32 = 1).
/// Throws std::invalid_argument when allow_tf32 is not 0 or 1, or is 1 with inputs not fp32.
bool allows_tf32(const Case& c);

}  // namespace opcert::ops::gemm
