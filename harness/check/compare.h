// Compares one output tensor with its reference under a tolerance and computes every metric
// of docs/TOLERANCES.md.
#pragma once

#include "check/tolerance.h"
#include "model/case_result.h"
#include "model/host_tensor.h"
#include "reference/reference.h"

namespace opcert {

/// Metrics of `got` against `ref` (all elements, or ref.indices when sampled).
TensorMetrics compare_output(const HostTensor& got, const ReferenceOutput& ref, const OutputTolerance& tolerance);

/// One line on a rounding bias: its size in ulp, its direction, its support and confidence.
std::string describe_bias(const RoundingMetrics& rounding);

/// The status the metrics of every output give together: ERROR when an output with elements had none
/// checked, FAILED on biased rounding or any mismatch, MISTRUSTED when the reference is degenerate
/// (mostly zeros) so a pass proves little, PASSED otherwise (its message naming any empty output).
/// `zeros_expected` (a case tagged "zeros_expected": K = 0, empty key sequences, ...) waives the
/// MISTRUSTED rule: there the zeros are the point, and the NaN-filled output proves they were written.
Status judge(const std::vector<TensorMetrics>& metrics, std::string& message, bool zeros_expected = false);

}  // namespace opcert
