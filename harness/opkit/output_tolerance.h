// How one output is judged (docs/TOLERANCES.md): the rule, and for a bound the largest
// |got - expected| a conforming implementation may produce at each element. Each op derives its
// own (OpDescriptor::tolerance); harness/check/tolerance.h applies the generic rules and overrides.
#pragma once

#include <cstddef>
#include <functional>

#include <opcert/backend_abi.h>

namespace opcert {

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

/// Unit roundoff of fp32 accumulation, which every op's contract assumes (docs/OPS.md).
inline constexpr double kAccumulationRoundoff = 0x1.0p-24;

/// Smallest positive value of a dtype (its least subnormal): the absolute floor of every bound.
double least_subnormal(opcert_dtype dtype);

}  // namespace opcert
