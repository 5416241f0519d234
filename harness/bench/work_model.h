// The work an op does, as `opcert bench` counts it: the flops behind TFLOP/s, the bytes behind
// GB/s, and which of the two (against which peak) a case is judged by. docs/OPS.md "Work model"
// is the contract; this is its implementation.
#pragma once

#include <string>

#include "model/case.h"

namespace opcert {

struct WorkModel {
  double flops = 0;            // arithmetic operations the op's model counts (0 where none is modelled)
  double bytes = 0;            // bytes read plus bytes written, each operand once (inputs and outputs, incl. scales, bias, lse, cu_seqlens, positions, cos/sin tables)
  std::string compute_dtype;   // the key into a platform's peak TFLOP/s table ("bf16","fp16","fp32","tf32","fp8_e4m3fn","fp8_e5m2","int8"); empty for memory-bound ops
  bool compute_bound = false;  // true: TFLOP/s is the headline figure (gemm family, attention); false: GB/s
};

/// The model of one fully built case (docs/OPS.md "Work model"). Throws std::invalid_argument for an op it does not know.
/// Also throws std::invalid_argument when an operand the model reads is missing or malformed
/// (e.g. varlen attention whose cu_seqlens are not given as values).
WorkModel work_model(const Case& c);

}  // namespace opcert
