#include "reports/alignment.h"

#include <algorithm>
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

std::optional<double> floored_alignment_ratio(double own_rmse, double peer_rmse, double bound_rms, int64_t elements) {
  const double floor = std::isfinite(bound_rms) && elements > 0
                           ? kAlignmentFloor * bound_rms / std::sqrt(static_cast<double>(elements))
                           : 0.0;
  const double own = std::max(own_rmse, floor), peer = std::max(peer_rmse, floor);
  if (peer != 0.0) return own / peer;
  if (own == 0.0) return 1.0;
  return std::nullopt;
}

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
    const TensorMetrics& own = r.metrics.front();
    r.alignment_ratio = floored_alignment_ratio(own.rmse, peer, own.bound_rms, own.checked);
  }
}

}  // namespace opcert
