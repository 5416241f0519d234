// The alignment figure (DESIGN.md section 5): each implementation's RMSE on a case over the peer's
// RMSE on the same inputs, filled in once every backend has run.
#pragma once

#include <string>
#include <vector>

#include "model/case_result.h"

namespace opcert {

/// For every result of a backend other than `peer_backend`, looks up the peer's result for the
/// same suite and case id: on the same device (host and index) when the peer's results carry
/// devices too (it was selected and run with --devices), else the peer's untagged result (the
/// peer, a yardstick, runs once on its first device). When the peer PASSED or FAILED with metrics, sets peer_rmse to the
/// rmse of the peer's first (primary) output and, when this result has metrics too,
/// alignment_ratio = own rmse / peer_rmse. A zero peer rmse gives ratio 1 when the own rmse is
/// 0 as well, and no ratio otherwise (it would be infinite); a NaN or infinite peer rmse gives
/// no ratio. Results without a usable peer result are left as they are; "" for no peer does nothing.
void fill_alignment(std::vector<CaseResult>& results, const std::string& peer_backend);

}  // namespace opcert
