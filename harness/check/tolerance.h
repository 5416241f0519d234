// The tolerance model (docs/TOLERANCES.md): for every output element, the largest
// |got - expected| a conforming implementation may produce, from the output dtype's unit
// roundoff, fp32 accumulation, the reduction length and the element's conditioning.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>

#include "model/case.h"
#include "reference/reference.h"

namespace opcert {

/// How one output is judged.
struct OutputTolerance {
  enum class Rule {
    kBound,          // |got - expected| <= bound(i)
    kExact,          // got == expected (integer outputs)
    kQuantizedCode,  // got is the rounding of the ideal quotient, or a neighbour within fp32 noise
  };
  Rule rule = Rule::kBound;
  opcert_dtype dtype = OPCERT_DTYPE_F32;
  /// kBound: the allowed error at element k of the ReferenceOutput is
  /// absolute(k) + relative * |expected rounded to the output dtype|.
  std::function<double(std::size_t k)> absolute;
  double relative = 0.0;

  double bound(std::size_t k, double expected) const;
};

/// A platform config's override of the derived bound (docs/CONFIGS.md): a given field replaces
/// the derived absolute or relative part.
struct BoundOverride {
  std::optional<double> atol;
  std::optional<double> rtol;
};

/// The tolerance of output `ref.name` of case `c`.
OutputTolerance output_tolerance(const Case& c, const ReferenceOutput& ref, const BoundOverride& override_ = {});

/// Smallest positive value of a dtype (its least subnormal): the absolute floor of every bound.
double least_subnormal(opcert_dtype dtype);

}  // namespace opcert
