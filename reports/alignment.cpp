#include "reports/alignment.h"

#include <cmath>
#include <map>
#include <utility>

namespace opcert {

void fill_alignment(std::vector<CaseResult>& results, const std::string& peer_backend) {
  // The peer's primary-output rmse per (suite, case); the first usable peer result wins.
  std::map<std::pair<std::string, std::string>, double> peer_rmse;
  for (const auto& r : results) {
    if (r.backend != peer_backend || r.metrics.empty()) continue;
    if (r.status != Status::kPassed && r.status != Status::kFailed) continue;
    peer_rmse.emplace(std::make_pair(r.suite, r.case_id), r.metrics.front().rmse);
  }
  for (auto& r : results) {
    if (r.backend == peer_backend) continue;
    const auto it = peer_rmse.find({r.suite, r.case_id});
    if (it == peer_rmse.end()) continue;
    const double torch = it->second;
    r.torch_rmse = torch;
    r.alignment_ratio.reset();
    if (r.metrics.empty() || !std::isfinite(torch)) continue;
    const double own = r.metrics.front().rmse;
    if (torch != 0.0)
      r.alignment_ratio = own / torch;
    else if (own == 0.0)
      r.alignment_ratio = 1.0;
  }
}

}  // namespace opcert
