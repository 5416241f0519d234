#include "reports/alignment.h"

#include <cmath>
#include <map>
#include <utility>

namespace opcert {

void fill_alignment(std::vector<CaseResult>& results, const std::string& peer_backend) {
  if (peer_backend.empty()) return;
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
    const double peer = it->second;
    r.peer_rmse = peer;
    r.alignment_ratio.reset();
    if (r.metrics.empty() || !std::isfinite(peer)) continue;
    const double own = r.metrics.front().rmse;
    if (peer != 0.0)
      r.alignment_ratio = own / peer;
    else if (own == 0.0)
      r.alignment_ratio = 1.0;
  }
}

}  // namespace opcert
