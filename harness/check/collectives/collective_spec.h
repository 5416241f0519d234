// What a collective case asks for (docs/OPS.md, "Collectives"): the op, dtype, per-rank count,
// reduce op, root and in-place flag, and the buffer sizes they give on a world of n ranks.
#pragma once

#include <opcert/backend_abi.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "model/case.h"

namespace opcert {

enum class CollectiveKind { kAllReduce, kAllGather, kReduceScatter, kBroadcast, kAllToAll };
enum class ReduceOp { kSum, kMax, kMin, kAvg };

/// The collective of a catalogue op name, or nullopt for a compute op.
std::optional<CollectiveKind> collective_kind(std::string_view op);
/// "sum", "max", "min", "avg" and back.
std::string_view reduce_op_name(ReduceOp op);
std::optional<ReduceOp> parse_reduce_op(std::string_view name);

struct CollectiveSpec {
  CollectiveKind kind = CollectiveKind::kAllReduce;
  opcert_dtype dtype = OPCERT_DTYPE_F32;
  int64_t count = 0;            // docs/OPS.md: the per-rank unit each op counts in
  ReduceOp reduce = ReduceOp::kSum;
  int64_t root = 0;             // as given: negative counts from the last rank
  bool in_place = false;

  /// Reads a collective case (its x operand and attributes); throws std::invalid_argument.
  static CollectiveSpec of(const Case& c);

  bool reduces() const { return kind == CollectiveKind::kAllReduce || kind == CollectiveKind::kReduceScatter; }
  /// Elements of x and y on each rank of a world of `ranks`.
  int64_t input_elements(int ranks) const;
  int64_t output_elements(int ranks) const;
  /// Where y starts inside x's memory for an in-place call, in elements (NCCL's layout):
  /// all_gather's x is y's slice `rank`, reduce_scatter's y is x's slice `rank`, else they coincide.
  /// Negative for all_gather: x starts `rank * count` elements into y.
  int64_t in_place_output_offset(int rank) const;
  /// The root rank on a world of `ranks`, or nullopt when `root` names no rank there.
  std::optional<int> root_rank(int ranks) const;
};

/// Why the case cannot be checked exactly on `ranks` ranks ("" when it can): a reduction whose
/// sums would leave the dtype's exact integers, or a root outside the world.
std::string collective_unrunnable(const CollectiveSpec& spec, int ranks);

/// The largest |input| of the case on `ranks` ranks: small enough that every partial sum of a
/// sum or avg is an integer the dtype holds exactly (docs/OPS.md), 100 for the other ops.
int64_t collective_value_bound(const CollectiveSpec& spec, int ranks);

}  // namespace opcert
