// The size sweep of `opcert bench` on collectives, with nccl-tests' conventions (DESIGN.md
// section 8): the sizes from --min-bytes to --max-bytes, each --step-factor times the last; what
// "size" means per op (all_reduce and broadcast: the buffer; all_gather: the gathered output;
// reduce_scatter: the input that is scattered; all_to_all: one rank's whole send buffer); the
// per-rank count of a size, rounded down so that it divides among the ranks where the op splits
// its buffer; and the factor from algorithm bandwidth to bus bandwidth.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "check/collectives/collective_spec.h"

namespace opcert {

struct SweepSettings {
  uint64_t min_bytes = 1024;
  uint64_t max_bytes = uint64_t{256} << 20;
  double step_factor = 2.0;
};

/// "4096", "1K", "256M", "1G" (powers of 1024; a trailing "B" or "iB" is allowed) in bytes.
/// Throws InputError naming `flag` and what to write instead.
uint64_t parse_byte_size(std::string_view text, std::string_view flag);
/// Short form for tables: "1K", "256M", "1.5G"; plain bytes under 1 KiB.
std::string format_byte_size(double bytes);

/// Throws InputError (one line naming the flags) when min > max, a size is 0, or the step factor
/// is not above 1.
void validate_sweep(const SweepSettings& s);
/// min, min*f, min*f^2, ... up to max (max itself is always last when the steps miss it).
std::vector<uint64_t> sweep_sizes(const SweepSettings& s);

/// The elements of one unit of `kind`'s count per "size" byte: the rank count for the ops that
/// split their buffer among the ranks (all_gather, reduce_scatter, all_to_all), else 1.
int64_t size_units(CollectiveKind kind, int ranks);
/// The per-rank count (CollectiveSpec::count) of a size: at least 1.
int64_t count_for_size(CollectiveKind kind, opcert_dtype dtype, uint64_t bytes, int ranks);
/// The bytes nccl-tests calls the size of an op of `count` on `ranks` ranks.
uint64_t size_of_count(CollectiveKind kind, opcert_dtype dtype, int64_t count, int ranks);
/// busbw = algbw x this: all_reduce 2(n-1)/n, all_gather, reduce_scatter and all_to_all (n-1)/n,
/// broadcast 1.
double bus_factor(CollectiveKind kind, int ranks);

}  // namespace opcert
