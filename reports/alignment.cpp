#include "reports/alignment.h"

#include <cmath>
#include <map>
#include <tuple>
#include <utility>

namespace opcert {
namespace {

// Where a result ran: "" untagged, else its host and device index.
std::string place_of(const CaseResult& r) {
  return r.device ? r.device->host + "#" + std::to_string(r.device->index) : std::string();
}

}  // namespace

void fill_alignment(std::vector<CaseResult>& results, const std::string& peer_backend) {
  if (peer_backend.empty()) return;
  // The peer's primary-output rmse per (suite, case, place); the first usable peer result wins.
  std::map<std::tuple<std::string, std::string, std::string>, double> peer_rmse;
  for (const auto& r : results) {
    if (r.backend != peer_backend || r.metrics.empty()) continue;
    if (r.status != Status::kPassed && r.status != Status::kFailed) continue;
    peer_rmse.emplace(std::make_tuple(r.suite, r.case_id, place_of(r)), r.metrics.front().rmse);
  }
  for (auto& r : results) {
    if (r.backend == peer_backend) continue;
    // The peer on the same device when it ran on the devices too, else its one untagged result.
    auto it = peer_rmse.find({r.suite, r.case_id, place_of(r)});
    if (it == peer_rmse.end()) it = peer_rmse.find({r.suite, r.case_id, std::string()});
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
