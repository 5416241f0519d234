// Internal to harness/check: the table of case builders (case_builder.cpp) with each op's
// parameter table, and the generated case ids the suite loader uses.
#pragma once

#include <nlohmann/json.hpp>
#include <set>
#include <span>
#include <string>
#include <string_view>

#include "check/case_builder.h"
#include "check/ops/op_params.h"

namespace opcert::check_ops {

struct OpBuilderEntry {
  std::string_view op;
  CaseBuilder build;
  std::span<const ParamDef> (*params)();
};

std::span<const OpBuilderEntry> op_builders();
const OpBuilderEntry* find_op_builder(std::string_view op);

/// The id tokens of `params`: one per parameter that differs from its default (or is marked
/// always_in_id), in the op's table order ("bf16", "e4m3", "m128", "bias", "nobias",
/// "window_left64", "nan_inf", "seqlens_q3_0_5"; fp8 dtypes by their short names),
/// joined with '.'. With `only`, just those parameter names, named even at their default.
/// Unknown names are ignored here (the builder rejects them).
std::string id_tokens(const OpBuilderEntry& entry, const nlohmann::json& params,
                      const std::set<std::string>* only = nullptr);

// One per op file in ops/.
#define OPCERT_DECLARE_OP(name)                                  \
  void build_##name(const nlohmann::json& params, Case& c);      \
  std::span<const ParamDef> name##_params();
OPCERT_DECLARE_OP(gemm)
OPCERT_DECLARE_OP(gemm_fp8)
OPCERT_DECLARE_OP(gemm_int8)
OPCERT_DECLARE_OP(quantize)
OPCERT_DECLARE_OP(attention)
OPCERT_DECLARE_OP(rms_norm)
OPCERT_DECLARE_OP(layer_norm)
OPCERT_DECLARE_OP(rope)
OPCERT_DECLARE_OP(softmax)
OPCERT_DECLARE_OP(all_reduce)
OPCERT_DECLARE_OP(all_gather)
OPCERT_DECLARE_OP(reduce_scatter)
OPCERT_DECLARE_OP(broadcast)
OPCERT_DECLARE_OP(all_to_all)
#undef OPCERT_DECLARE_OP

}  // namespace opcert::check_ops
