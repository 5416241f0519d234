// The NCCL process group, for CUDA memory: the caller's buffers go straight to NCCL (an aborted
// NCCL communicator writes nothing late), each call queued on c10d's NCCL stream and the current
// stream made to wait for it, as a torch.distributed user gets with async_op=False. What c10d
// has no out-of-place form for starts with a copy on the current stream: all_reduce (y = x),
// broadcast on the root, all_to_all in place (x kept aside). avg: c10d's AVG (ncclAvg) for
// floats; int32 sums and truncates, as the contract has it.
#include "collectives/process_group.h"

#include <opcert/sdk/error.h>

#if OPCERT_TORCH_HAS_NCCL
#include <torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp>
#include <torch/version.h>
#endif

namespace opcert::torch_backend {

#if OPCERT_TORCH_HAS_NCCL
namespace {

using sdk::Collective;
using sdk::Reduction;

c10d::ReduceOp nccl_op(Reduction r, at::ScalarType t) {
  switch (r) {
    case Reduction::kMax: return c10d::ReduceOp::MAX;
    case Reduction::kMin: return c10d::ReduceOp::MIN;
    case Reduction::kAvg: return t == at::kInt ? c10d::ReduceOp::SUM : c10d::ReduceOp::AVG;
    default: return c10d::ReduceOp::SUM;
  }
}

class NcclGroup final : public ProcessGroup {
 public:
  NcclGroup(const c10::intrusive_ptr<c10d::Store>& store, int rank, int nranks, std::chrono::milliseconds timeout)
      : rank_(rank), nranks_(nranks) {
    auto options = c10d::ProcessGroupNCCL::Options::create();
    options->timeout = timeout;
    group_ = c10::make_intrusive<c10d::ProcessGroupNCCL>(store, rank, nranks, options);
  }

  // A group whose work all completed shuts its communicator down, as torch.distributed's
  // destroy_process_group does (c10d warns of a leak otherwise). An aborted one is already down.
  ~NcclGroup() override {
#if TORCH_VERSION_MAJOR >= 2
    if (aborted_) return;
    try {
      group_->shutdown();
    } catch (const std::exception&) {  // nothing to report it to: the communicator is going anyway
    }
#endif
  }

  Transport transport() const override { return Transport::kNccl; }
  void abort() override {
    aborted_ = true;
    group_->abort();
  }

  Launched launch(const sdk::CollectiveArgs& a, const at::Tensor& x, const at::Tensor& y) override {
    at::Tensor in = x, out = y;
    c10::intrusive_ptr<c10d::Work> work;
    switch (a.op) {
      case Collective::kAllReduce: {
        if (!a.in_place) out.copy_(in);
        std::vector<at::Tensor> ts{out};
        c10d::AllreduceOptions options;
        options.reduceOp = nccl_op(a.reduction, y.scalar_type());
        work = group_->allreduce(ts, options);
        break;
      }
      case Collective::kReduceScatter: {
        c10d::ReduceScatterOptions options;
        options.reduceOp = nccl_op(a.reduction, y.scalar_type());
        work = group_->_reduce_scatter_base(out, in, options);
        break;
      }
      case Collective::kAllGather: work = group_->_allgather_base(out, in); break;
      case Collective::kBroadcast: {
        if (rank_ == a.root && !a.in_place) out.copy_(in);
        std::vector<at::Tensor> ts{out};
        c10d::BroadcastOptions options;
        options.rootRank = a.root;
        work = group_->broadcast(ts, options);
        break;
      }
      case Collective::kAllToAll: {
        if (a.in_place) in = x.clone();  // NCCL's all-to-all cannot read and write one buffer
        std::vector<int64_t> equal_splits;
        work = group_->alltoall_base(out, in, equal_splits, equal_splits);
        break;
      }
    }
    work->wait();  // orders the current stream after the collective; does not block the host
    if (a.reduction == Reduction::kAvg && y.scalar_type() == at::kInt &&
        (a.op == Collective::kAllReduce || a.op == Collective::kReduceScatter))
      out.div_(nranks_, "trunc");
    return {work, {in, out}, {}};
  }

 private:
  int rank_, nranks_;
  bool aborted_ = false;
  c10::intrusive_ptr<c10d::ProcessGroupNCCL> group_;
};

}  // namespace

std::unique_ptr<ProcessGroup> make_nccl_group(const c10::intrusive_ptr<c10d::Store>& store, int rank, int nranks,
                                              std::chrono::milliseconds timeout) {
  return std::make_unique<NcclGroup>(store, rank, nranks, timeout);
}
#else
std::unique_ptr<ProcessGroup> make_nccl_group(const c10::intrusive_ptr<c10d::Store>&, int, int, std::chrono::milliseconds) {
  throw sdk::Error(OPCERT_ERROR_UNSUPPORTED, transport_missing(Transport::kNccl));
}
#endif

}  // namespace opcert::torch_backend
