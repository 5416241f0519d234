// A collective call of the CPU backend, read from the op call (docs/OPS.md, "Collectives"):
// which op, on what, and the per-rank count each op counts in.
#pragma once

#include <opcert/sdk/backend.h>

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace opcert::cpu {

enum class Collective { kAllReduce, kAllGather, kReduceScatter, kBroadcast, kAllToAll };
enum class Reduction { kSum, kMax, kMin, kAvg };

struct CollectiveArgs {
  Collective op = Collective::kAllReduce;
  int32_t dtype = OPCERT_DTYPE_F32;
  Reduction reduction = Reduction::kSum;
  int root = 0;           // resolved: 0 .. nranks-1
  bool in_place = false;
  int64_t count = 0;      // the per-rank unit: all of x for all_reduce and broadcast, y for reduce_scatter, ...
  const std::byte* x = nullptr;
  std::byte* y = nullptr;
  std::size_t x_bytes = 0;
  std::size_t y_bytes = 0;
};

/// The collective a catalogue op names; throws sdk::Error (NOT_FOUND) for another op.
Collective collective_of(std::string_view op);

/// Why the CPU backend cannot run this call on `nranks` ranks ("" when it can): dtypes,
/// shapes that do not match the op's sizes, a bad reduce_op or root. Data may be null.
std::string collective_unsupported(const sdk::OpCall& call, Collective op, int nranks);

/// Reads a supported call (collective_unsupported said ""); root resolved for `nranks`.
CollectiveArgs read_collective(const sdk::OpCall& call, Collective op, int nranks);

}  // namespace opcert::cpu
