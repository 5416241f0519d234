// The per-rank check of a collective (DESIGN.md section 8): a rank computes the output it must
// receive from every rank's input (RankInputs) and compares its own output with it, exactly
// (the inputs are integers, so any reduction order gives the same bits), except avg over a rank
// count that is not a power of two, where the 1/n scaling may round (docs/OPS.md bounds it).
#pragma once

#include <string>
#include <vector>

#include "opkit/collective.h"
#include "check/collectives/rank_inputs.h"
#include "model/case_result.h"
#include "model/host_tensor.h"

namespace opcert {

struct ExpectedOutput {
  std::vector<double> values;  // y of the rank, already rounded into the dtype
  double bound = 0.0;          // the allowed |got - expected|; 0 means bit-exact
};

/// What rank `rank` must hold in y after the collective.
ExpectedOutput expected_output(const CollectiveSpec& spec, const RankInputs& inputs, int rank);

/// Compares rank `rank`'s y with the expectation. `first_mismatch` gets "" when all match, else
/// one line naming the rank, the index, got and expected, and how many elements differ.
TensorMetrics compare_rank_output(const HostTensor& got, const ExpectedOutput& expected, int rank,
                                  std::string& first_mismatch);

}  // namespace opcert
