// The size sweep of `opcert bench` on collectives, with nccl-tests' conventions (DESIGN.md
// section 8): the sizes from --min-bytes to --max-bytes, each --step-factor times the last; what
// "size" means (the larger of a rank's input and output buffers: CollectiveSpec::size_units); and
// the per-rank count of a size, rounded down so that it divides among the ranks where the op
// splits its buffer. Each collective's bus factor comes from its traits.
#pragma once

#include <cstdint>
#include <vector>

#include "opkit/collective.h"

namespace opcert {

struct SweepSettings {
  uint64_t min_bytes = 1024;
  uint64_t max_bytes = uint64_t{256} << 20;
  double step_factor = 2.0;
};

/// Throws InputError (one line naming the flags) when min > max, a size is 0, or the step factor
/// is not above 1.
void validate_sweep(const SweepSettings& s);
/// min, min*f, min*f^2, ... up to max (max itself is always last when the steps miss it).
std::vector<uint64_t> sweep_sizes(const SweepSettings& s);

/// The per-rank count (CollectiveSpec::count) of a size in `spec`'s dtype: at least 1. A size
/// counts the larger of x and y, as nccl-tests does (CollectiveSpec::size_units).
int64_t count_for_size(const CollectiveSpec& spec, uint64_t bytes, int ranks);
/// The bytes nccl-tests calls the size of `spec` with `count` on `ranks` ranks.
uint64_t size_of_count(const CollectiveSpec& spec, int64_t count, int ranks);

}  // namespace opcert
