// A collective as data (docs/OPS.md, "Collectives"; after nccl-tests' per-collective hooks): each
// collective's folder fills a CollectiveTraits (how its buffers scale with the ranks, what each
// rank's output holds, how its bus bandwidth counts), and CollectiveSpec reads a case of it: the
// dtype, per-rank count, reduce op, root and in-place flag, and the buffer sizes they give on a
// world of n ranks. Nothing outside the collective's folder asks which collective it is.
#pragma once

#include <opcert/backend_abi.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "model/case.h"

namespace opcert {

enum class ReduceOp { kSum, kMax, kMin, kAvg };

/// "sum", "max", "min", "avg" and back.
std::string_view reduce_op_name(ReduceOp op);
std::optional<ReduceOp> parse_reduce_op(std::string_view name);

/// Every rank's input of a collective case, as any rank can compute it (the exact fill of
/// harness/check/collectives/rank_inputs.h).
class RankValues {
 public:
  virtual ~RankValues() = default;
  virtual int ranks() const = 0;
  /// Element i of rank `rank`'s x, exactly.
  virtual double value(int rank, int64_t i) const = 0;
};

struct CollectiveSpec;

struct CollectiveTraits {
  bool reduces = false;          // takes reduce_op, and its sums must stay exact integers
  bool rooted = false;           // takes root
  bool input_per_rank = false;   // x holds `count` elements for each rank (count * ranks)
  bool output_per_rank = false;  // y holds `count` elements for each rank
  /// Element i of rank `rank`'s y, before rounding into the dtype (avg divides as the contract says).
  double (*expected)(const CollectiveSpec& spec, const RankValues& inputs, int rank, int64_t i) = nullptr;
  /// busbw = algbw * bus_factor(n): the traffic each link carries, nccl-tests' convention.
  double (*bus_factor)(int ranks) = nullptr;
};

struct CollectiveSpec {
  std::string op;
  const CollectiveTraits* traits = nullptr;
  opcert_dtype dtype = OPCERT_DTYPE_F32;
  int64_t count = 0;            // docs/OPS.md: the per-rank unit each op counts in
  ReduceOp reduce = ReduceOp::kSum;
  int64_t root = 0;             // as given: negative counts from the last rank
  bool in_place = false;

  /// Reads a collective case (its x operand and attributes); throws std::invalid_argument.
  static CollectiveSpec of(const Case& c);
  /// The spec of collective `op` with every other field at its default; throws
  /// std::invalid_argument when `op` is no registered collective.
  static CollectiveSpec of_op(std::string_view op);

  bool reduces() const { return traits->reduces; }
  bool rooted() const { return traits->rooted; }
  /// Elements of x and y on each rank of a world of `ranks`.
  int64_t input_elements(int ranks) const;
  int64_t output_elements(int ranks) const;
  /// Where y starts inside x's memory for an in-place call, in elements (NCCL's layout): an output
  /// per rank holds x as its slice `rank` (negative: x starts `rank * count` elements into y), an
  /// input per rank holds y as its slice `rank`; otherwise they coincide.
  int64_t in_place_output_offset(int rank) const;
  /// The root rank on a world of `ranks`, or nullopt when `root` names no rank there.
  std::optional<int> root_rank(int ranks) const;
  /// How many counts one size step of the bench moves: the larger buffer, as nccl-tests sizes it.
  int64_t size_units(int ranks) const;
  /// busbw / algbw on `ranks` ranks.
  double bus_factor(int ranks) const { return traits->bus_factor(ranks); }
};

/// (n-1)/n: the bus factor of a collective where each rank sends or receives every slice but its own.
double slice_bus_factor(int ranks);

/// reduce_op over every rank's element `i` of x, with avg's division as the contract states it
/// (int32 truncates): what a reducing collective computes per element.
double reduced_value(const CollectiveSpec& spec, const RankValues& inputs, int64_t i);

/// Why the case cannot be checked exactly on `ranks` ranks ("" when it can): a reduction whose
/// sums would leave the dtype's exact integers, or a root outside the world.
std::string collective_unrunnable(const CollectiveSpec& spec, int ranks);

/// The largest |input| of the case on `ranks` ranks: small enough that every partial sum of a
/// sum or avg is an integer the dtype holds exactly (docs/OPS.md), 100 for the other ops.
int64_t collective_value_bound(const CollectiveSpec& spec, int ranks);

}  // namespace opcert
