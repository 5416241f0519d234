// The work an op does, as `opcert bench` counts it: the flops behind TFLOP/s, the bytes behind
// GB/s, and which of the two (against which peak) a case is judged by. docs/OPS.md "Work model" is
// the contract; each op's folder implements its part (OpDescriptor::work).
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

/// The model of one fully built case, from its op. Throws std::invalid_argument for an op without
/// one (collectives are swept by size instead) and when an operand the model reads is missing or
/// malformed (e.g. varlen attention whose cu_seqlens are not given as values).
WorkModel work_model(const Case& c);

/// Every operand once, inputs and outputs: what an ideal kernel must move at least.
double operand_bytes(const Case& c);

/// The model of an op whose arithmetic is negligible next to its traffic: operand_bytes, GB/s.
WorkModel memory_bound_work(const Case& c);

/// Input or output `name` of `c`, which must have `rank` dimensions; throws std::invalid_argument
/// naming the case otherwise.
const TensorSpec& work_operand(const Case& c, const std::string& name, std::size_t rank);

/// Throws std::invalid_argument "work model of <op> case '<id>': <message>".
[[noreturn]] void work_model_error(const Case& c, const std::string& message);

}  // namespace opcert
