// The operands of a layer_norm call (docs/OPS.md "layer_norm"): those of norm.h with an optional
// bias [H], eps 1e-5 unless given.
#pragma once

#include <opcert/sdk/ops/norm.h>

namespace opcert::sdk {

/// The names a layer_norm call is made of: norm.h's and the op's own.
namespace layer_norm_names {
inline constexpr const char* kOp = "layer_norm";
using namespace norm_names;
}  // namespace layer_norm_names

/// Reads and checks the call's operands; the first problem is recorded in `check`.
inline NormOperands parse_layer_norm(const OpCall& call, CallCheck& check) {
  return parse_norm(call, check, NormKind::kLayer);
}

}  // namespace opcert::sdk
