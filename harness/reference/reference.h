// The golden reference: every op of docs/OPS.md computed in fp64 with LibTorch, from exactly the
// values the backend received (inputs decoded from their storage dtype, fp8 included).
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "model/case.h"
#include "model/host_tensor.h"

namespace opcert {

/// The golden values of one output operand, with what the tolerance model needs per element.
struct ReferenceOutput {
  std::string name;              // the output operand ("c", "o", "lse", ...)
  std::vector<int64_t> indices;  // flat row-major indices computed; empty means all, in order
  std::vector<double> values;    // the exact result per element (before any output rounding)
  /// Scale of the terms that produced each element, e.g. sum_k |a*b| for a dot product;
  /// rounding errors are measured against it (docs/TOLERANCES.md, per op).
  std::vector<double> magnitude;
  /// Op-specific growth factor of the internal fp32 error (e.g. attention's score magnitude);
  /// empty when the op has none.
  std::vector<double> condition;
};

/// Which flat indices of each output to compute; an output not named is computed whole.
using SamplePlan = std::map<std::string, std::vector<int64_t>>;

/// Golden outputs for `c`. `inputs` hold the exact bytes the backend received, in the order of
/// c.inputs. Throws std::invalid_argument for a case the contract does not define.
///
/// One ReferenceOutput per output operand, in the order of c.outputs. Computed on the CPU in
/// fp64 with LibTorch (harness/reference/ops/<op>.cpp, one file per op; collectives have none).
/// Values are exact results before rounding into the output dtype, except where the contract
/// itself rounds an intermediate (rms_norm/layer_norm normalise the rounded residual; quantize
/// divides by the fp32-rounded scale). Per op (docs/TOLERANCES.md uses them):
///   gemm, gemm_fp8, gemm_int8  magnitude = the formula over |every factor|; no condition.
///   quantize   q: the unrounded clamped quotient, scale: amax / qmax; magnitude = |value|.
///   attention  o: magnitude sum_j p_ij |v_jd|, condition max_j |s_ij| over allowed keys (1 if
///              none); lse: magnitude 1, condition max_j |scale| sum_d |q_d k_d|. A query with
///              no allowed key has o = 0 (magnitude 0) and lse = -inf.
///   rms_norm, layer_norm  y: magnitude |y| (layer_norm: (|r| + mean|r|) / sigma |w| + |b|);
///              residual_out: the exact x + residual, magnitude |x| + |residual|.
///   rope       magnitude |x1 c| + |x2 s| (|x2 c| + |x1 s| for the second slot); |x| copied.
///   softmax    magnitude = value; condition = max |x| over the row's finite inputs + log N.
/// With a SamplePlan entry for an output, only those (sorted, in-range) indices are computed and
/// ReferenceOutput::indices repeats them; a plan naming a non-output is an invalid_argument.
/// Built without LibTorch, it throws std::runtime_error saying so.
std::vector<ReferenceOutput> compute_reference(const Case& c, std::span<const HostTensor> inputs,
                                               const SamplePlan& sample = {});

}  // namespace opcert
