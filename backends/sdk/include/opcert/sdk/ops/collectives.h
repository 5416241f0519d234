// The operands of a collective call (docs/OPS.md "Collectives"), checked against the contract once
// for every backend, so that the CPU (MPI), CUDA (NCCL) and torch (c10d) backends accept and refuse
// exactly the same calls: x and y one-dimensional in one dtype (fp32, fp16, bf16 or int32), sized
// for the op on n ranks; reduce_op (all_reduce, reduce_scatter), root (broadcast), in_place.
#pragma once

#include <opcert/sdk/call_check.h>
#include <opcert/sdk/error.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace opcert::sdk {

/// The names a collective call is made of (the ops' own are kCollectiveOps): the one spelling of
/// its operands and attributes, which the harness's op folders build their cases with and
/// parse_collective reads.
namespace collective_names {
inline constexpr const char* kX = "x";                 // input [count], this rank's
inline constexpr const char* kY = "y";                 // output, sized for the op on n ranks
inline constexpr const char* kReduceOp = "reduce_op";  // attribute
inline constexpr const char* kRoot = "root";           // attribute
inline constexpr const char* kInPlace = "in_place";    // attribute
}  // namespace collective_names

enum class Collective { kAllReduce, kAllGather, kReduceScatter, kBroadcast, kAllToAll };
enum class Reduction { kSum, kMax, kMin, kAvg };

/// The catalogue's collective op names, in catalogue order.
inline constexpr const char* kCollectiveOps[] = {"all_reduce", "all_gather", "reduce_scatter", "broadcast", "all_to_all"};

/// The catalogue name of a collective.
constexpr const char* collective_name(Collective op) { return kCollectiveOps[static_cast<int>(op)]; }

/// The collective a catalogue op names; throws sdk::Error (NOT_FOUND) for another op.
inline Collective collective_of(std::string_view op) {
  for (int i = 0; i < 5; ++i)
    if (op == kCollectiveOps[i]) return static_cast<Collective>(i);
  throw Error(OPCERT_ERROR_NOT_FOUND, "'" + std::string(op) + "' is not a collective");
}

struct CollectiveOperands {
  std::optional<Tensor> x{}, y{};
  Collective op = Collective::kAllReduce;
  int nranks = 1;
  int32_t dtype = OPCERT_DTYPE_INVALID;  // T, of x and y
  Reduction reduction = Reduction::kSum;  // all_reduce and reduce_scatter
  int root = 0;                           // broadcast: the sending rank, resolved to 0 .. nranks-1
  bool in_place = false;                  // x and y share memory (docs/OPS.md says how)
  int64_t count = 0;  // the per-rank unit: all of x for all_reduce and broadcast, y for reduce_scatter, ...
};

namespace detail {

// Whether the op's input (or output) holds one block of `count` per rank.
inline bool per_rank_blocks(Collective op, bool input) {
  switch (op) {
    case Collective::kAllGather: return !input;
    case Collective::kReduceScatter: return input;
    case Collective::kAllToAll: return true;
    default: return false;
  }
}

// count from x and y (both 1-D): each holds count, or n·count where the op has a block per rank.
inline int64_t collective_count(CallCheck& check, const Tensor& x, const Tensor& y, Collective op, int nranks) {
  const bool x_blocks = per_rank_blocks(op, true), y_blocks = per_rank_blocks(op, false);
  const Tensor& unit = x_blocks ? y : x;  // a tensor that holds count, if either does
  const std::string n = std::to_string(nranks);
  if (x_blocks && y_blocks) {  // all_to_all: both [n·count]
    check.require(x.numel() % nranks == 0,
                  "x has " + std::to_string(x.numel()) + " elements, expected [n·count] with n = " + n + " ranks");
    check.shape(y, {x.numel()}, "[n·count] (the shape of x)");
    return x.numel() / nranks;
  }
  const int64_t count = unit.numel();
  const std::string labels = "[n·count] with n = " + n + " ranks and count = " + std::to_string(count) + " (" +
                             std::string(unit.name()) + ")";
  if (x_blocks) check.shape(x, {nranks * count}, labels);
  else if (y_blocks) check.shape(y, {nranks * count}, labels);
  else check.shape(y, {count}, "[count] (the shape of x)");
  return count;
}

}  // namespace detail

/// Reads and checks a `op` call on `nranks` ranks; the first problem is recorded in `check` (whose
/// `ok()` says whether the operands are usable). The root is resolved to a rank.
inline CollectiveOperands parse_collective(const OpCall& call, CallCheck& check, Collective op, int nranks) {
  CollectiveOperands c;
  check.only_attributes({collective_names::kReduceOp, collective_names::kRoot, collective_names::kInPlace});
  c.op = op;
  c.nranks = nranks;
  c.x = check.input(collective_names::kX);
  c.y = check.output(collective_names::kY);
  if (op == Collective::kAllReduce || op == Collective::kReduceScatter)
    c.reduction = enum_attr(check, call, collective_names::kReduceOp, Reduction::kSum,
                            {{"sum", Reduction::kSum}, {"max", Reduction::kMax}, {"min", Reduction::kMin}, {"avg", Reduction::kAvg}});
  if (op == Collective::kBroadcast) {
    const int64_t root = int_attr(check, call, collective_names::kRoot, 0);
    check.require(root >= -nranks && root < nranks, "attribute 'root' must be a rank of " + std::to_string(nranks) +
                                                        ", in [-" + std::to_string(nranks) + ", " + std::to_string(nranks) +
                                                        ") (got " + std::to_string(root) + ")");
    if (check.ok()) c.root = static_cast<int>(root < 0 ? root + nranks : root);
  }
  c.in_place = flag_attr(check, call, collective_names::kInPlace, false);
  if (!check.ok()) return c;
  check.dtype(*c.x, {OPCERT_DTYPE_F32, OPCERT_DTYPE_F16, OPCERT_DTYPE_BF16, OPCERT_DTYPE_I32});
  check.same_dtype(*c.y, *c.x);
  c.dtype = c.x->dtype();
  const bool ranks = check.rank(*c.x, 1, detail::per_rank_blocks(op, true) ? "[n·count]" : "[count]") &&
                     check.rank(*c.y, 1, detail::per_rank_blocks(op, false) ? "[n·count]" : "[count]");
  if (!check.ok() || !ranks) return c;
  c.count = detail::collective_count(check, *c.x, *c.y, op, nranks);
  check.require(c.count <= 2147483647, "count = " + std::to_string(c.count) + " elements per rank is above 2^31 - 1");
  return c;
}

/// A collective as a communicator runs it: the parsed call with its buffers.
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

/// The arguments of operands that parsed (with their data).
inline CollectiveArgs collective_args(const CollectiveOperands& c) {
  CollectiveArgs a;
  a.op = c.op;
  a.dtype = c.dtype;
  a.reduction = c.reduction;
  a.root = c.root;
  a.in_place = c.in_place;
  a.count = c.count;
  a.x = c.x->data<const std::byte>();
  a.y = c.y->data<std::byte>();
  a.x_bytes = static_cast<std::size_t>(c.x->numel()) * dtype_size(c.dtype);
  a.y_bytes = static_cast<std::size_t>(c.y->numel()) * dtype_size(c.dtype);
  return a;
}

}  // namespace opcert::sdk
