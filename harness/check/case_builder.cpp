#include "check/case_builder.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>

#include "check/ops/op_registry.h"

namespace opcert {
namespace check_ops {
namespace {

constexpr std::array<OpBuilderEntry, 14> kBuilders{{
    {"gemm", build_gemm, gemm_params},
    {"gemm_fp8", build_gemm_fp8, gemm_fp8_params},
    {"gemm_int8", build_gemm_int8, gemm_int8_params},
    {"quantize", build_quantize, quantize_params},
    {"attention", build_attention, attention_params},
    {"rms_norm", build_rms_norm, rms_norm_params},
    {"layer_norm", build_layer_norm, layer_norm_params},
    {"rope", build_rope, rope_params},
    {"softmax", build_softmax, softmax_params},
    {"all_reduce", build_all_reduce, all_reduce_params},
    {"all_gather", build_all_gather, all_gather_params},
    {"reduce_scatter", build_reduce_scatter, reduce_scatter_params},
    {"broadcast", build_broadcast, broadcast_params},
    {"all_to_all", build_all_to_all, all_to_all_params},
}};

std::string scalar_token(const json& v) {
  if (v.is_number_float()) {
    const double d = v.get<double>();
    if (std::isfinite(d) && d == std::floor(d) && std::fabs(d) < 1e15) return fmt::format("{}", static_cast<int64_t>(d));
    return fmt::format("{}", d);
  }
  if (v.is_string()) return v.get<std::string>();
  return v.dump();
}

// fp8 dtypes by their short names, whichever spelling the suite used.
json canonical(const json& v) {
  if (v == "fp8_e4m3fn") return "e4m3";
  if (v == "fp8_e5m2") return "e5m2";
  return v;
}

// See id_tokens in op_registry.h for the shape of each token.
std::string token(const std::string& name, const json& v) {
  if (v.is_boolean()) return v.get<bool>() ? name : "no" + name;
  if (v.is_string()) return canonical(v).get<std::string>();
  if (v.is_array()) {
    const bool all_strings = !v.empty() && std::all_of(v.begin(), v.end(), [](const json& e) { return e.is_string(); });
    std::string out = all_strings ? "" : name;
    for (std::size_t i = 0; i < v.size(); ++i) out += (i == 0 ? "" : "_") + scalar_token(v[i]);
    return v.empty() ? "no" + name : out;
  }
  return name + scalar_token(v);
}

}  // namespace

std::span<const OpBuilderEntry> op_builders() { return kBuilders; }

const OpBuilderEntry* find_op_builder(std::string_view op) {
  for (const auto& e : kBuilders)
    if (e.op == op) return &e;
  return nullptr;
}

std::string id_tokens(const OpBuilderEntry& entry, const json& params, const std::set<std::string>* only) {
  std::string out;
  for (const auto& def : entry.params()) {
    if (only && !only->contains(def.name)) continue;
    auto it = params.find(def.name);
    const json* value = it != params.end() ? &*it : (def.always_in_id ? &def.fallback : nullptr);
    if (!value) continue;
    // A parameter asked for by name is named even at its default (grid ids stay distinct).
    const bool at_default = !def.fallback.is_null() && canonical(*value) == canonical(def.fallback);
    if (!only && !def.always_in_id && at_default) continue;
    if (!out.empty()) out += '.';
    out += token(def.name, *value);
  }
  return out;
}

}  // namespace check_ops

CaseBuilder case_builder(const std::string& op) {
  const auto* entry = check_ops::find_op_builder(op);
  return entry ? entry->build : nullptr;
}

}  // namespace opcert
