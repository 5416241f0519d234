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
  /// kBound and kQuantizedCode: the largest error a conforming value may carry before its final
  /// rounding into dtype (docs/TOLERANCES.md, "Rounding"). Where the exact value lies farther
  /// than this from every rounding boundary of dtype, round-to-nearest-even's result is known and
  /// required bit for bit; 0 says the value before rounding is exact, so ties are decided too.
  /// Unset for kBound: `absolute` (check/tolerance.h fills it in).
  std::function<double(std::size_t k)> noise;
  /// kBound: the part of `noise` that need not average out over many elements: all of it but the
  /// roundings to nearest of intermediates into dtype, which are unbiased. Elements where it is
  /// far below one spacing of dtype feed the test of biased rounding. Unset: `noise`.
  std::function<double(std::size_t k)> bias_noise;
  /// kBound: elements (flat, row-major) that may share one error, such as a row whose mean and
  /// deviation are held to dtype's precision: that error is left out of bias_noise, and the test
  /// of biased rounding draws its standard error from whole groups, so a lean that such errors
  /// give a group is counted as chance, and a lean every group shows is not (docs/TOLERANCES.md).
  std::size_t bias_group = 1;
  /// Whether the rounding checks run: not where a platform config overrides the bound.
  bool rounding_checks = true;

  double bound(std::size_t k, double expected) const;
};

/// Unit roundoff of fp32 accumulation, which every op's contract assumes (docs/OPS.md).
inline constexpr double kAccumulationRoundoff = 0x1.0p-24;

/// Hopper's fp8 tensor cores keep about 14 significant bits in their accumulators (DeepSeek-V3
/// technical report, section 3.3.2), and torch's _scaled_mm on an H100 shows errors of that size:
/// the accumulation roundoff of sums of fp8 products (gemm_fp8, fp8 attention) is 2^-14.
inline constexpr double kFp8TensorCoreRoundoff = 0x1.0p-14;

/// Smallest positive value of a dtype (its least subnormal): the absolute floor of every bound.
double least_subnormal(opcert_dtype dtype);

}  // namespace opcert
