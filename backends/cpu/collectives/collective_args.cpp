#include "collectives/collective_args.h"

#include <string>

namespace opcert::cpu {
namespace {

std::string dtype_text(int32_t dtype) { return sdk::dtype_name(dtype); }

bool multi(Collective op, bool input) {
  switch (op) {
    case Collective::kAllGather: return !input;
    case Collective::kReduceScatter: return input;
    case Collective::kAllToAll: return true;
    default: return false;
  }
}

}  // namespace

Collective collective_of(std::string_view op) {
  if (op == "all_reduce") return Collective::kAllReduce;
  if (op == "all_gather") return Collective::kAllGather;
  if (op == "reduce_scatter") return Collective::kReduceScatter;
  if (op == "broadcast") return Collective::kBroadcast;
  if (op == "all_to_all") return Collective::kAllToAll;
  throw sdk::Error(OPCERT_ERROR_NOT_FOUND, "'" + std::string(op) + "' is not a collective");
}

std::string collective_unsupported(const sdk::OpCall& call, Collective op, int nranks) {
  const auto x = call.find_input("x");
  const auto y = call.find_output("y");
  if (!x || !y) return "a collective needs input 'x' and output 'y'";
  const int32_t dtype = x->dtype();
  if (dtype != OPCERT_DTYPE_F32 && dtype != OPCERT_DTYPE_F16 && dtype != OPCERT_DTYPE_BF16 && dtype != OPCERT_DTYPE_I32)
    return "fp32, fp16, bf16 or int32 only (x is " + dtype_text(dtype) + ")";
  if (y->dtype() != dtype) return "x and y must have one dtype (x " + dtype_text(dtype) + ", y " + dtype_text(y->dtype()) + ")";
  if (x->ndim() != 1 || y->ndim() != 1 || !x->contiguous() || !y->contiguous())
    return "x and y must be dense one-dimensional tensors";
  const int64_t x_unit = multi(op, true) ? x->numel() / nranks : x->numel();
  const int64_t y_unit = multi(op, false) ? y->numel() / nranks : y->numel();
  if (x_unit != y_unit || (multi(op, true) && x->numel() % nranks != 0) || (multi(op, false) && y->numel() % nranks != 0))
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

CollectiveArgs read_collective(const sdk::OpCall& call, Collective op, int nranks) {
  const sdk::Tensor x = call.input("x");
  const sdk::Tensor y = call.output("y");
  CollectiveArgs a;
  a.op = op;
  a.dtype = x.dtype();
  const std::string r = call.get_string("reduce_op", "sum");
  a.reduction = r == "max" ? Reduction::kMax : r == "min" ? Reduction::kMin : r == "avg" ? Reduction::kAvg : Reduction::kSum;
  const int64_t root = call.get_int("root", 0);
  a.root = static_cast<int>(root < 0 ? root + nranks : root);
  a.in_place = call.get_int("in_place", 0) != 0;
  a.count = multi(op, false) ? y.numel() / nranks : y.numel();
  a.x = x.data<const std::byte>();
  a.y = y.data<std::byte>();
  a.x_bytes = static_cast<std::size_t>(x.numel()) * sdk::dtype_size(a.dtype);
  a.y_bytes = static_cast<std::size_t>(y.numel()) * sdk::dtype_size(a.dtype);
  return a;
}

}  // namespace opcert::cpu
