#include "naive_collectives.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstring>
#include <vector>

#include "model/scalar_codec.h"

namespace opcert::mutants {
namespace {

using sdk::Collective;
using sdk::Reduction;

// Every rank's x, in rank order, as the communicator's own all_gather delivers it.
class GatheredInputs {
 public:
  GatheredInputs(cpu::CpuComm& comm, const sdk::CollectiveArgs& a)
      : dtype_(static_cast<opcert_dtype>(a.dtype)), size_(sdk::dtype_size(a.dtype)), per_rank_(a.x_bytes / size_),
        bytes_(a.x_bytes * static_cast<std::size_t>(comm.nranks())) {
    if (a.x_bytes == 0) return;  // every rank has the same count: all skip alike
    sdk::CollectiveArgs gather;
    gather.op = Collective::kAllGather;
    gather.dtype = a.dtype;
    gather.count = static_cast<int64_t>(per_rank_);
    gather.x = a.x;
    gather.y = bytes_.data();
    gather.x_bytes = a.x_bytes;
    gather.y_bytes = bytes_.size();
    comm.run(gather);
  }
  /// Element i of rank r's x, exactly.
  double value(int r, int64_t i) const {
    return load_from(dtype_, bytes_.data() + (static_cast<std::size_t>(r) * per_rank_ + static_cast<std::size_t>(i)) * size_);
  }

 private:
  opcert_dtype dtype_;
  std::size_t size_, per_rank_;
  std::vector<std::byte> bytes_;
};

double combine(Reduction op, double acc, double v) {
  if (op == Reduction::kMax) return std::max(acc, v);
  if (op == Reduction::kMin) return std::min(acc, v);
  return acc + v;
}

// Element i of the reduction over ranks [0, ranks) of x.
double reduced(const GatheredInputs& in, const sdk::CollectiveArgs& a, int ranks, int nranks, int64_t i, bool divide) {
  double acc = in.value(0, i);
  for (int r = 1; r < ranks; ++r) acc = combine(a.reduction, acc, in.value(r, i));
  if (a.reduction != Reduction::kAvg || !divide) return acc;
  return a.dtype == OPCERT_DTYPE_I32 ? std::trunc(acc / nranks) : acc / nranks;
}

}  // namespace

sdk::CollectiveTarget mutant_collective_target() { return {OPCERT_DEVICE_CPU, cpu::mpi_job_ranks, nullptr}; }

const std::vector<CollectiveVariant>& collective_variants() {
  static const std::vector<CollectiveVariant> variants = {
      {Collective::kAllReduce, CollectiveDefect::kNone, "correct"},
      {Collective::kAllGather, CollectiveDefect::kNone, "correct"},
      {Collective::kReduceScatter, CollectiveDefect::kNone, "correct"},
      {Collective::kBroadcast, CollectiveDefect::kNone, "correct"},
      {Collective::kAllToAll, CollectiveDefect::kNone, "correct"},
      {Collective::kAllReduce, CollectiveDefect::kRankDropped, "rank_dropped"},
      {Collective::kAllReduce, CollectiveDefect::kAvgNotDivided, "avg_not_divided"},
      {Collective::kAllGather, CollectiveDefect::kOrderReversed, "order_reversed"},
      {Collective::kAllGather, CollectiveDefect::kOwnBlockOnly, "own_block_only"},
      {Collective::kReduceScatter, CollectiveDefect::kWrongBlock, "wrong_block"},
      {Collective::kReduceScatter, CollectiveDefect::kNotReduced, "not_reduced"},
      {Collective::kBroadcast, CollectiveDefect::kRootIgnored, "root_ignored"},
      {Collective::kBroadcast, CollectiveDefect::kLocalCopy, "local_copy"},
      {Collective::kAllToAll, CollectiveDefect::kLocalCopy, "local_copy"},
      {Collective::kAllToAll, CollectiveDefect::kWrongSourceBlock, "wrong_source_block"},
  };
  return variants;
}

void run_naive_collective(cpu::CpuComm& comm, const sdk::CollectiveArgs& a, CollectiveDefect defect) {
  const GatheredInputs in(comm, a);  // read before y is written: in place, x is part of y
  const int n = comm.nranks(), me = comm.rank();
  const auto dtype = static_cast<opcert_dtype>(a.dtype);
  const std::size_t size = sdk::dtype_size(a.dtype);
  const auto put = [&](int64_t i, double v) { store_as(dtype, v, a.y + static_cast<std::size_t>(i) * size); };
  const int64_t count = a.count;
  switch (a.op) {
    case Collective::kAllReduce:
      for (int64_t i = 0; i < count; ++i)
        put(i, reduced(in, a, defect == CollectiveDefect::kRankDropped ? n - 1 : n, n, i,
                       defect != CollectiveDefect::kAvgNotDivided));
      break;
    case Collective::kAllGather:
      for (int r = 0; r < n; ++r) {
        if (defect == CollectiveDefect::kOwnBlockOnly && r != me) continue;
        const int slot = defect == CollectiveDefect::kOrderReversed ? n - 1 - r : r;
        for (int64_t i = 0; i < count; ++i) put(slot * count + i, in.value(r, i));
      }
      break;
    case Collective::kReduceScatter: {
      const int block = defect == CollectiveDefect::kWrongBlock ? (me + 1) % n : me;
      for (int64_t i = 0; i < count; ++i)
        put(i, defect == CollectiveDefect::kNotReduced ? in.value(me, block * count + i)
                                                       : reduced(in, a, n, n, block * count + i, true));
      break;
    }
    case Collective::kBroadcast: {
      const int root = defect == CollectiveDefect::kRootIgnored ? 0 : defect == CollectiveDefect::kLocalCopy ? me : a.root;
      for (int64_t i = 0; i < count; ++i) put(i, in.value(root, i));
      break;
    }
    case Collective::kAllToAll:
      for (int j = 0; j < n; ++j) {
        const int from = defect == CollectiveDefect::kLocalCopy ? me : j;
        const int block = defect == CollectiveDefect::kNone ? me : j;
        for (int64_t i = 0; i < count; ++i) put(j * count + i, in.value(from, block * count + i));
      }
      break;
  }
}

}  // namespace opcert::mutants
