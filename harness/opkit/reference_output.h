// What a golden reference gives for one output operand: the exact values, and what the tolerance
// model needs per element (harness/reference/ computes them; each op's tolerance reads them).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

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

  double value(std::size_t k) const { return values[k]; }
  /// magnitude[k], or |value| when the reference gave none.
  double magnitude_at(std::size_t k) const;
  /// condition[k], or 1 when the reference gave none.
  double condition_at(std::size_t k) const;
};

/// Which flat indices of each output to compute; an output not named is computed whole.
using SamplePlan = std::map<std::string, std::vector<int64_t>>;

}  // namespace opcert
