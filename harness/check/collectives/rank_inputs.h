// Every rank's input of a collective case, reproducible on any rank: element i of rank r is an
// integer in [-V, V] drawn from the counter-based generator keyed by (seed, case, "x.rank<r>", i),
// so each rank can compute what every other rank sent and check its own output locally.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "opkit/collective.h"
#include "check/philox.h"
#include "model/host_tensor.h"

namespace opcert {

class RankInputs : public RankValues {
 public:
  RankInputs(const CollectiveSpec& spec, uint64_t seed, std::string_view case_id, int ranks);

  int ranks() const override { return ranks_; }
  int64_t bound() const { return bound_; }
  /// Element i of rank `rank`'s x, exactly (it is representable in the case's dtype).
  double value(int rank, int64_t i) const override;
  /// Rank `rank`'s x, stored in the case's dtype.
  HostTensor tensor(int rank) const;

 private:
  CollectiveSpec spec_;
  int ranks_;
  int64_t bound_;
  std::vector<CounterRng> streams_;  // one per rank
};

}  // namespace opcert
