// One result's measurements as plain text, shared by the JUnit and Markdown writers so both say
// the same thing in the same words.
#pragma once

#include <string>

#include "model/case_result.h"

namespace opcert {

/// "C: 3/1024 out of bound (0 NaN/Inf), checked 1024 of 1024; max_abs 0.5, ..." on one line.
std::string describe_metrics(const TensorMetrics& metrics);

/// "C[17]: got 1.5, expected 1.25, bound 0.01", or "" when there is no worst element.
std::string describe_worst_element(const TensorMetrics& metrics);

/// "C: rounding decided on 900 elements, 0 not to nearest even; bias -0.01 ulp by magnitude over
/// 1000 elements, z 0", or "" when no rounding check applied.
std::string describe_rounding(const TensorMetrics& metrics);

/// The full failure text: the message, one line per output's metrics, the sampled and
/// out-of-bounds notes, the alignment figure and the repro line.
std::string describe_result(const CaseResult& result);

}  // namespace opcert
