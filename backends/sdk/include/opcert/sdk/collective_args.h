// A collective call as every backend reads it (docs/OPS.md, "Collectives"): which op, on what,
// and the per-rank count each op counts in. Shared so that the CPU (MPI), CUDA (NCCL) and torch
// (c10d) backends accept and refuse exactly the same calls.
#pragma once

#include <opcert/sdk/backend.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace opcert::sdk {

enum class Collective { kAllReduce, kAllGather, kReduceScatter, kBroadcast, kAllToAll };
enum class Reduction { kSum, kMax, kMin, kAvg };

/// A checked collective call, root resolved to 0 .. nranks-1.
struct CollectiveArgs {
  Collective op = Collective::kAllReduce;
  int32_t dtype = OPCERT_DTYPE_F32;
  Reduction reduction = Reduction::kSum;
  int root = 0;
  bool in_place = false;
  int64_t count = 0;  // the per-rank unit: all of x for all_reduce and broadcast, y for reduce_scatter, ...
  const std::byte* x = nullptr;
  std::byte* y = nullptr;
  std::size_t x_bytes = 0;
  std::size_t y_bytes = 0;
};

/// The catalogue's collective op names, in catalogue order.
inline constexpr const char* kCollectiveOps[] = {"all_reduce", "all_gather", "reduce_scatter", "broadcast", "all_to_all"};

namespace detail {
// Whether the op's input (or output) holds one block per rank.
inline bool per_rank_blocks(Collective op, bool input) {
  switch (op) {
    case Collective::kAllGather: return !input;
    case Collective::kReduceScatter: return input;
    case Collective::kAllToAll: return true;
    default: return false;
  }
}
}  // namespace detail

/// The catalogue name of a collective.
inline const char* collective_name(Collective op) { return kCollectiveOps[static_cast<int>(op)]; }

/// The collective a catalogue op names; throws sdk::Error (NOT_FOUND) for another op.
inline Collective collective_of(std::string_view op) {
  for (int i = 0; i < 5; ++i)
    if (op == kCollectiveOps[i]) return static_cast<Collective>(i);
  throw Error(OPCERT_ERROR_NOT_FOUND, "'" + std::string(op) + "' is not a collective");
}

/// Why this call cannot run on `nranks` ranks ("" when it can): dtypes, shapes that do not match
/// the op's sizes, a bad reduce_op or root. Data may be null.
inline std::string collective_unsupported(const OpCall& call, Collective op, int nranks) {
  const auto x = call.find_input("x");
  const auto y = call.find_output("y");
  if (!x || !y) return "a collective needs input 'x' and output 'y'";
  const int32_t dtype = x->dtype();
  if (dtype != OPCERT_DTYPE_F32 && dtype != OPCERT_DTYPE_F16 && dtype != OPCERT_DTYPE_BF16 && dtype != OPCERT_DTYPE_I32)
    return "fp32, fp16, bf16 or int32 only (x is " + std::string(dtype_name(dtype)) + ")";
  if (y->dtype() != dtype)
    return "x and y must have one dtype (x " + std::string(dtype_name(dtype)) + ", y " + std::string(dtype_name(y->dtype())) + ")";
  if (x->ndim() != 1 || y->ndim() != 1 || !x->contiguous() || !y->contiguous())
    return "x and y must be dense one-dimensional tensors";
  const bool x_blocks = detail::per_rank_blocks(op, true);
  const bool y_blocks = detail::per_rank_blocks(op, false);
  const int64_t x_unit = x_blocks ? x->numel() / nranks : x->numel();
  const int64_t y_unit = y_blocks ? y->numel() / nranks : y->numel();
  if (x_unit != y_unit || (x_blocks && x->numel() % nranks != 0) || (y_blocks && y->numel() % nranks != 0))
    return "x has " + std::to_string(x->numel()) + " and y " + std::to_string(y->numel()) +
           " elements, which do not match this op on " + std::to_string(nranks) + " ranks";
  if (x_unit > 2147483647) return "more than 2^31 - 1 elements per rank";
  if (op == Collective::kAllReduce || op == Collective::kReduceScatter) {
    const std::string r = call.get_string("reduce_op", "sum");
    if (r != "sum" && r != "max" && r != "min" && r != "avg") return "unknown reduce_op '" + r + "'";
  }
  if (op == Collective::kBroadcast) {
    const int64_t root = call.get_int("root", 0);
    if (root < -nranks || root >= nranks) return "root " + std::to_string(root) + " is not a rank of " + std::to_string(nranks);
  }
  return {};
}

/// Reads a supported call (collective_unsupported said "").
inline CollectiveArgs read_collective(const OpCall& call, Collective op, int nranks) {
  const Tensor x = call.input("x");
  const Tensor y = call.output("y");
  CollectiveArgs a;
  a.op = op;
  a.dtype = x.dtype();
  const std::string r = call.get_string("reduce_op", "sum");
  a.reduction = r == "max" ? Reduction::kMax : r == "min" ? Reduction::kMin : r == "avg" ? Reduction::kAvg : Reduction::kSum;
  const int64_t root = call.get_int("root", 0);
  a.root = static_cast<int>(root < 0 ? root + nranks : root);
  a.in_place = call.get_int("in_place", 0) != 0;
  a.count = detail::per_rank_blocks(op, false) ? y.numel() / nranks : y.numel();
  a.x = x.data<const std::byte>();
  a.y = y.data<std::byte>();
  a.x_bytes = static_cast<std::size_t>(x.numel()) * dtype_size(a.dtype);
  a.y_bytes = static_cast<std::size_t>(y.numel()) * dtype_size(a.dtype);
  return a;
}

}  // namespace opcert::sdk
