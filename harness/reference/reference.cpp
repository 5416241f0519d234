// compute_reference: dispatches a case to its op's reference and returns the outputs in the
// order the case lists them.
#include "reference/reference.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>
#include <string_view>

#include "model/op_catalogue.h"
#include "reference/ops/ops.h"

namespace opcert {
namespace {

using reference_detail::OpReference;

OpReference reference_of(std::string_view op) {
  namespace r = reference_detail;
  static constexpr std::pair<std::string_view, OpReference> kTable[] = {
      {"gemm", r::gemm_reference},         {"gemm_fp8", r::gemm_fp8_reference},
      {"gemm_int8", r::gemm_int8_reference}, {"quantize", r::quantize_reference},
      {"attention", r::attention_reference}, {"rms_norm", r::rms_norm_reference},
      {"layer_norm", r::layer_norm_reference}, {"rope", r::rope_reference},
      {"softmax", r::softmax_reference},
  };
  for (const auto& [name, fn] : kTable)
    if (name == op) return fn;
  return nullptr;
}

}  // namespace

std::vector<ReferenceOutput> compute_reference(const Case& c, std::span<const HostTensor> inputs, const SamplePlan& sample) {
  const OpReference fn = reference_of(c.op);
  if (fn == nullptr) {
    const OpEntry* entry = find_op(c.op);
    if (entry != nullptr && entry->family == OpFamily::kCollective)
      throw std::invalid_argument(fmt::format("{}: collectives are checked per rank, not by the golden reference", c.op));
    throw std::invalid_argument(fmt::format("no golden reference for op '{}'", c.op));
  }
  for (const auto& [name, indices] : sample)
    if (c.find_output(name) == nullptr)
      throw std::invalid_argument(fmt::format("{}: the sample plan names '{}', which is not an output of the case", c.op, name));

  std::vector<ReferenceOutput> computed = fn(c, inputs, sample);
  std::vector<ReferenceOutput> ordered;
  ordered.reserve(c.outputs.size());
  for (const TensorSpec& spec : c.outputs) {
    auto it = std::find_if(computed.begin(), computed.end(), [&](const ReferenceOutput& o) { return o.name == spec.name; });
    if (it == computed.end()) throw std::invalid_argument(fmt::format("{}: '{}' is not an output of this op", c.op, spec.name));
    ordered.push_back(std::move(*it));
  }
  return ordered;
}

}  // namespace opcert
