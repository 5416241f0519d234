// The last case's generated inputs and golden outputs, kept for the next job on the same case.
// A run plans every implementation of a case one after the other (planning/job_list.h), and both
// are pure functions of the case (its specs, seed and id; docs/ARCHITECTURE.md, "Data"): a worker
// serving eleven implementations of one GEMM case generated its inputs and computed its fp64
// reference eleven times. With a memo it does both once; the bytes are the same, so the verdicts
// are too (docs/RELIABILITY.md, "The slowest tests").
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "model/case.h"
#include "model/host_tensor.h"
#include "opkit/reference_output.h"

namespace opcert {

class CaseMemo {
 public:
  using Inputs = std::shared_ptr<const std::vector<HostTensor>>;
  using Golden = std::shared_ptr<const std::vector<ReferenceOutput>>;

  /// Forgets the last case unless `c` is it, so that a new case is admitted and allocated with
  /// nothing of the last one held. Call first when a job on `c` starts.
  void begin(const Case& c);

  /// The inputs of `c`: kept from the last call for the same case, else `generate()`d and kept.
  /// What `generate` throws passes through, and nothing is kept.
  Inputs inputs(const Case& c, const std::function<std::vector<HostTensor>()>& generate);

  /// The golden outputs of `c` (from its memoised inputs): kept, else `compute()`d and kept.
  /// What `compute` throws passes through, and nothing is kept.
  Golden golden(const Case& c, const std::function<std::vector<ReferenceOutput>()>& compute);

 private:
  // The case is the suite's own object (it outlives the memo); its id and seed are compared
  // too, so that another case at the same address is never taken for it.
  bool holds(const Case& c) const { return case_ == &c && id_ == c.id && seed_ == c.seed; }

  const Case* case_ = nullptr;
  std::string id_;
  uint64_t seed_ = 0;
  Inputs inputs_;
  Golden golden_;
};

}  // namespace opcert
