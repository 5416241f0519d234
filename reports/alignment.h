// The alignment figure (DESIGN.md section 5): each implementation's RMSE on a case over the peer's
// RMSE on the same inputs, filled in once every backend has run.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/case_result.h"

namespace opcert {

/// The floor of an RMSE over one element, as a fraction of the bound's RMS (docs/TOLERANCES.md,
/// "Metrics"); over n elements it is this over sqrt(n). Below it, errors differ by which conforming
/// order got lucky, not by how good the code is.
inline constexpr double kAlignmentFloor = 1.0 / 16.0;

/// own / peer with each RMSE raised to kAlignmentFloor * bound_rms / sqrt(elements) first (no
/// floor where bound_rms is 0: exact outputs, quantized codes, reports before schema 2.7): 1 when
/// both are 0, none when only the peer's is (the ratio would be infinite).
std::optional<double> floored_alignment_ratio(double own_rmse, double peer_rmse, double bound_rms, int64_t elements);

/// For every result of a backend other than `peer_backend`, looks up the peer's result for the
/// same suite and case id: on the same device (host and index) when the peer's results carry
/// devices too (it was selected and run with --devices), else the peer's untagged result (the
/// peer, a yardstick, runs once on its first device). When the peer PASSED or FAILED with metrics, sets peer_rmse to the
/// rmse of the peer's first (primary) output and, when this result has metrics too,
/// alignment_ratio = floored_alignment_ratio(own rmse, peer_rmse, own bound_rms, own checked); a NaN or
/// infinite peer rmse gives no ratio. Results without a usable peer result are left as they are; "" for no peer does nothing.
void fill_alignment(std::vector<CaseResult>& results, const std::string& peer_backend);

}  // namespace opcert
