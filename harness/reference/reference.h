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
std::vector<ReferenceOutput> compute_reference(const Case& c, std::span<const HostTensor> inputs,
                                               const SamplePlan& sample = {});

}  // namespace opcert
