// The operands of an rms_norm call (docs/OPS.md "rms_norm"): those of norm.h without a bias,
// eps 1e-6 unless given.
#pragma once

#include <opcert/sdk/ops/norm.h>

namespace opcert::sdk {

/// The names an rms_norm call is made of: norm.h's and the op's own.
namespace rms_norm_names {
inline constexpr const char* kOp = "rms_norm";
using namespace norm_names;
}  // namespace rms_norm_names

/// Reads and checks the call's operands; the first problem is recorded in `check`.
inline NormOperands parse_rms_norm(const OpCall& call, CallCheck& check) { return parse_norm(call, check, NormKind::kRms); }

}  // namespace opcert::sdk
