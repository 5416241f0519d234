#include "collectives/collective_plan.h"

namespace opcert::cuda {
namespace {

bool power_of_two(int n) { return n > 0 && (n & (n - 1)) == 0; }

bool reduces(Collective op) { return op == Collective::kAllReduce || op == Collective::kReduceScatter; }

NcclCall call_of(Collective op) {
  switch (op) {
    case Collective::kAllReduce: return NcclCall::kAllReduce;
    case Collective::kReduceScatter: return NcclCall::kReduceScatter;
    case Collective::kAllGather: return NcclCall::kAllGather;
    case Collective::kBroadcast: return NcclCall::kBroadcast;
    case Collective::kAllToAll: return NcclCall::kSendRecvGroup;
  }
  return NcclCall::kNothing;
}

}  // namespace

std::string nccl_version_text(int code) {
  return std::to_string(code / 10000) + "." + std::to_string(code / 100 % 100) + "." + std::to_string(code % 100);
}

AvgStrategy avg_strategy(int32_t dtype, int nranks) {
  // NCCL sums integers then divides with truncation toward zero (C's '/', the contract). For
  // floats it scales each input by 1/n before summing: exact only when 1/n is a power of two.
  if (dtype == OPCERT_DTYPE_I32 || power_of_two(nranks)) return AvgStrategy::kNcclAvg;
  return AvgStrategy::kSumThenDivide;
}

CollectivePlan plan_collective(const sdk::CollectiveArgs& a, int nranks) {
  CollectivePlan plan;
  if (a.count == 0) return plan;
  plan.call = call_of(a.op);
  if (reduces(a.op)) {
    plan.reduction = a.reduction;
    if (a.reduction == Reduction::kAvg) {
      plan.avg = avg_strategy(a.dtype, nranks);
      if (plan.avg == AvgStrategy::kSumThenDivide) plan.reduction = Reduction::kSum;
    }
  }
  plan.stage_input = a.op == Collective::kAllToAll && a.in_place && nranks > 1;
  return plan;
}

std::string nccl_declines(int version) {
  // The floor covers every (dtype, reduction) of the contract: bf16 and ncclAvg came with 2.10.
  if (version >= kMinNcclVersion) return {};
  return "NCCL " + nccl_version_text(version) + " is older than " + nccl_version_text(kMinNcclVersion) +
         ", the oldest opcert runs collectives on (bf16 and avg need 2.10, non-blocking init 2.14)";
}

}  // namespace opcert::cuda
