// How the CUDA backend runs one collective on NCCL, decided without NCCL or a GPU (so that it is
// unit-tested anywhere): which NCCL call, which reduction, how avg is made exact, whether the
// input must be staged first, and which calls an NCCL version can take at all.
#pragma once

#include <cstdint>
#include <string>

#include <opcert/sdk/ops/collectives.h>

namespace opcert::cuda {

using sdk::Collective;
using sdk::Reduction;

/// How all_reduce and reduce_scatter compute avg.
enum class AvgStrategy {
  kNone,            // not an avg
  kNcclAvg,         // ncclAvg: exact here (int32: sum then C's truncating division; floats: 1/n is a power of two)
  kSumThenDivide,   // ncclSum, then one division by n rounded once into the dtype (avg_divide.h)
};

/// The NCCL calls a collective becomes.
enum class NcclCall {
  kNothing,        // count 0: every rank skips the call alike
  kAllReduce,
  kReduceScatter,
  kAllGather,
  kBroadcast,
  kSendRecvGroup,  // all_to_all: one ncclSend and one ncclRecv per rank (self included) in a group
};

struct CollectivePlan {
  NcclCall call = NcclCall::kNothing;
  Reduction reduction = Reduction::kSum;   // what NCCL is asked for (kAvg only with kNcclAvg)
  AvgStrategy avg = AvgStrategy::kNone;
  bool stage_input = false;                // copy x aside first: all_to_all in place would overwrite blocks not yet sent
  bool divide_after() const { return avg == AvgStrategy::kSumThenDivide; }
};

/// Oldest NCCL opcert builds against and runs with (2.14: ncclCommInitRankConfig with non-blocking
/// init, ncclGetLastError). bf16 and ncclAvg came with 2.10.
inline constexpr int kMinNcclVersion = 21400;

/// From 2.18 (ncclCommSplit) the collectives run on a blocking communicator split from the
/// non-blocking one that bounded the join: a non-blocking communicator launches each collective
/// from a thread of NCCL's own, which costs small collectives tens of microseconds.
inline constexpr int kBlockingSplitNcclVersion = 21800;

/// NCCL's version code for major.minor.patch (as NCCL_VERSION_CODE since 2.9: x*10000 + y*100 + z).
constexpr int nccl_version_code(int major, int minor, int patch) { return major * 10000 + minor * 100 + patch; }

/// "2.28.3" from a version code.
std::string nccl_version_text(int code);

/// avg on `nranks` ranks: ncclAvg where it gives the contract's exact result (docs/OPS.md),
/// otherwise a sum then a division, so that the result matches the reference bit for bit.
AvgStrategy avg_strategy(int32_t dtype, int nranks);

/// The plan of a checked call (sdk::collective_unsupported said "").
CollectivePlan plan_collective(const sdk::CollectiveArgs& args, int nranks);

/// Why the NCCL library of `version` (a version code, from ncclGetVersion) cannot run the
/// collectives; "" when it can run every (op, dtype, reduction) of the contract.
std::string nccl_declines(int version);

}  // namespace opcert::cuda
