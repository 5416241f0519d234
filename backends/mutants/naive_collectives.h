// The collectives done naively, with optional deliberate defects in their data paths: every rank's
// x is gathered to every rank through the CPU backend's communicator, and each rank computes its own
// y from all of them in fp64, rounding once. Without a defect they are correct (the twins).
#pragma once

#include <opcert/sdk/collective_implementations.h>
#include <opcert/sdk/ops/collectives.h>

#include <string>
#include <vector>

#include "collectives/cpu_comm.h"  // backends/cpu: the communicator (MPI, timeouts) the data travels on

namespace opcert::mutants {

enum class CollectiveDefect {
  kNone,
  kRankDropped,       // all_reduce: the last rank's x left out of the reduction (a ring one step short)
  kAvgNotDivided,     // all_reduce: avg returned as the sum
  kOrderReversed,     // all_gather: the blocks placed in reverse rank order
  kOwnBlockOnly,      // all_gather: only the rank's own block written (the others left as they were)
  kWrongBlock,        // reduce_scatter: rank r receives block r + 1 of the reduction
  kNotReduced,        // reduce_scatter: rank r receives block r of its own x, unreduced
  kRootIgnored,       // broadcast: rank 0 sends whatever root says
  kLocalCopy,         // broadcast, all_to_all: y is the rank's own x, as on one rank
  kWrongSourceBlock,  // all_to_all: y's block j is block j (not block r) of rank j's x
};

/// A collective variant of the mutant backend: its key's last part and its defect.
struct CollectiveVariant {
  sdk::Collective op;
  CollectiveDefect defect;
  const char* name;  // "correct" for the twin
};

/// Where the mutants' collectives run: host memory, the CPU backend's communicator (MPI across
/// the ranks of the job); they differ from their twins only in what they compute from every rank's x.
sdk::CollectiveTarget mutant_collective_target();

/// Every variant, twins first.
const std::vector<CollectiveVariant>& collective_variants();

/// Runs `args` on `comm` as the variant's naive code does.
void run_naive_collective(cpu::CpuComm& comm, const sdk::CollectiveArgs& args, CollectiveDefect defect);

}  // namespace opcert::mutants
