// What a case says about one operand: its name in the op contract, dtype, shape and, for an
// input, how its values are generated.
#pragma once

#include <opcert/backend_abi.h>

#include <cstdint>
#include <string>
#include <vector>

namespace opcert {

/// How an input's elements are generated (docs/TOLERANCES.md explains the choice per op).
struct FillSpec {
  enum class Kind {
    kRandom,    // uniform in [lo, hi], then rounded to the dtype
    kExact,     // multiples of `step` in [lo, hi], with probability `density` of being non-zero
    kValues,    // exactly `values` (cu_seqlens, positions, and hand-made tests)
    kRopeCos,   // cos(p * base^(-2i/R)) table, row p, column i (R = 2 * columns)
    kRopeSin,   // sin of the same angles
  };
  Kind kind = Kind::kRandom;
  double lo = -1.0;
  double hi = 1.0;
  double density = 1.0;
  double step = 1.0;            // kExact: the grid (0.5: half-integers)
  double base = 10000.0;        // rotary tables only
  std::vector<double> values;   // kValues
  /// Special values planted after the fill: every `special_every`-th element (0 = none)
  /// becomes the next of `specials` in turn (NaN, +inf, -inf, large magnitudes).
  int64_t special_every = 0;
  std::vector<double> specials;
  /// Specials go only into the first `special_span` elements (0 = the whole tensor), so that rows
  /// after them stay finite and an output that is NaN everywhere cannot pass.
  int64_t special_span = 0;
};

struct TensorSpec {
  std::string name;  // the operand's name in docs/OPS.md: "a", "b", "bias", "q", "lse", ...
  opcert_dtype dtype = OPCERT_DTYPE_F32;
  std::vector<int64_t> shape;
  FillSpec fill;     // inputs only

  int64_t numel() const;
  std::size_t bytes() const;
};

/// "[4, 128, 64]".
std::string shape_text(const std::vector<int64_t>& shape);

}  // namespace opcert
