// The Gloo process group, for host memory. Gloo's threads may outlive a timed-out call, so every
// collective runs on staging copies the launch owns (never the caller's memory); finish copies
// the result into y. fp16 and bf16 reduce in fp32 staging (exact for the sums the contract
// allows, and older Gloo has no bf16); the moving ops move bytes. avg: the sum, divided at the end.
#include "collectives/process_group.h"

#include <opcert/sdk/error.h>

#if OPCERT_TORCH_HAS_GLOO
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#endif

namespace opcert::torch_backend {

#if OPCERT_TORCH_HAS_GLOO
namespace {

using sdk::Collective;
using sdk::Reduction;

c10d::ReduceOp gloo_op(Reduction r) {
  switch (r) {
    case Reduction::kMax: return c10d::ReduceOp::MAX;
    case Reduction::kMin: return c10d::ReduceOp::MIN;
    default: return c10d::ReduceOp::SUM;
  }
}

// The staging dtype a reduction runs in.
at::ScalarType reduce_dtype(at::ScalarType t) { return t == at::kHalf || t == at::kBFloat16 ? at::kFloat : t; }

// sum / n as the contract has it: int32 truncates, floats round once into the dtype.
void divide(at::Tensor& sum, int n) {
  if (sum.scalar_type() == at::kInt) sum.div_(n, "trunc");
  else sum.div_(n);
}

class GlooGroup final : public ProcessGroup {
 public:
  GlooGroup(const c10::intrusive_ptr<c10d::Store>& store, int rank, int nranks, std::chrono::milliseconds timeout)
      : rank_(rank), nranks_(nranks) {
    auto options = c10d::ProcessGroupGloo::Options::create(timeout);
    options->devices.push_back(c10d::ProcessGroupGloo::createDefaultDevice());
    group_ = c10::make_intrusive<c10d::ProcessGroupGloo>(store, rank, nranks, options);
  }

  Transport transport() const override { return Transport::kGloo; }
  void abort() override {}  // c10d's own timeout ends Gloo's calls; the comm keeps their staging alive

  Launched launch(const sdk::CollectiveArgs& a, const at::Tensor& x, const at::Tensor& y) override {
    switch (a.op) {
      case Collective::kAllReduce:
      case Collective::kReduceScatter: return reduce(a, x, y);
      case Collective::kAllGather: {
        at::Tensor in = bytes(x).clone(), out = at::empty({bytes(y).numel()}, in.options());
        std::vector<std::vector<at::Tensor>> outs{out.chunk(nranks_)};
        std::vector<at::Tensor> ins{in};
        return moved(group_->allgather(outs, ins), in, out, y);
      }
      case Collective::kBroadcast: {
        at::Tensor s = rank_ == a.root ? bytes(x).clone() : at::empty({bytes(y).numel()}, at::kByte);
        std::vector<at::Tensor> ts{s};
        c10d::BroadcastOptions options;
        options.rootRank = a.root;
        return moved(group_->broadcast(ts, options), s, s, y);
      }
      case Collective::kAllToAll: {
        at::Tensor in = bytes(x).clone(), out = at::empty({bytes(y).numel()}, in.options());
        std::vector<int64_t> equal_splits;
        return moved(group_->alltoall_base(out, in, equal_splits, equal_splits), in, out, y);
      }
    }
    throw sdk::Error(OPCERT_ERROR_INTERNAL, "unknown collective");
  }

 private:
  static at::Tensor bytes(const at::Tensor& t) { return t.view(at::kByte); }

  Launched moved(c10::intrusive_ptr<c10d::Work> work, at::Tensor in, at::Tensor out, at::Tensor y) {
    return {std::move(work), {in, out}, [out, y]() mutable { y.view(at::kByte).copy_(out); }};
  }

  Launched reduce(const sdk::CollectiveArgs& a, const at::Tensor& x, const at::Tensor& y) {
    at::Tensor s = x.to(reduce_dtype(x.scalar_type()), /*non_blocking=*/false, /*copy=*/true);
    std::vector<at::Tensor> ts{s};
    c10d::AllreduceOptions options;
    options.reduceOp = gloo_op(a.reduction);
    // reduce_scatter: the whole x reduced, this rank's block kept (not every Gloo has reduce_scatter).
    const int64_t first = a.op == Collective::kReduceScatter ? rank_ * a.count : 0;
    const bool avg = a.reduction == Reduction::kAvg;
    const int n = nranks_;
    return {group_->allreduce(ts, options), {s}, [s, y, first, avg, n]() mutable {
              at::Tensor mine = s.narrow(0, first, y.numel());
              if (avg) divide(mine, n);
              y.copy_(mine);
            }};
  }

  int rank_, nranks_;
  c10::intrusive_ptr<c10d::ProcessGroupGloo> group_;
};

}  // namespace

std::unique_ptr<ProcessGroup> make_gloo_group(const c10::intrusive_ptr<c10d::Store>& store, int rank, int nranks,
                                              std::chrono::milliseconds timeout) {
  return std::make_unique<GlooGroup>(store, rank, nranks, timeout);
}
#else
std::unique_ptr<ProcessGroup> make_gloo_group(const c10::intrusive_ptr<c10d::Store>&, int, int, std::chrono::milliseconds) {
  throw sdk::Error(OPCERT_ERROR_UNSUPPORTED, transport_missing(Transport::kGloo));
}
#endif

}  // namespace opcert::torch_backend
