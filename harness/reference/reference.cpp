// compute_reference: finds the case's op reference in the table the op folders fill, and returns
// the outputs in the order the case lists them.
#include "reference/reference.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <stdexcept>
#include <string>

#include "opkit/op_registry.h"

#ifdef OPCERT_REFERENCE_HAS_TORCH
#include <torch/version.h>
#endif

namespace opcert {
namespace {

// A function-local static: registrations run during static initialisation, in any order.
std::map<std::string, OpReference, std::less<>>& references() {
  static std::map<std::string, OpReference, std::less<>> table;
  return table;
}

}  // namespace

void register_reference(std::string_view op, OpReference reference) {
  if (!references().emplace(std::string(op), reference).second) {
    std::fprintf(stderr, "opcert: two golden references for op '%.*s'; each op folder must register one\n",
                 static_cast<int>(op.size()), op.data());
    std::abort();
  }
}

bool reference_available() {
#ifdef OPCERT_REFERENCE_HAS_TORCH
  return true;
#else
  return false;
#endif
}

std::string reference_library() {
#ifdef OPCERT_REFERENCE_HAS_TORCH
  return fmt::format("LibTorch {}, fp64 on the CPU", TORCH_VERSION);
#else
  return "";
#endif
}

std::vector<ReferenceOutput> compute_reference(const Case& c, std::span<const HostTensor> inputs, const SamplePlan& sample) {
  const auto found = references().find(c.op);
  if (found == references().end()) {
    const OpDescriptor* op = find_op(c.op);
    if (op != nullptr && op->family == OpFamily::kCollective)
      throw std::invalid_argument(fmt::format("{}: collectives are checked per rank, not by the golden reference", c.op));
#ifndef OPCERT_REFERENCE_HAS_TORCH
    // The shipped ops compute their references with LibTorch, which this build lacks.
    throw std::runtime_error("opcert was built without LibTorch: the golden reference is unavailable; install libtorch-dev");
#endif
    throw std::invalid_argument(fmt::format("no golden reference for op '{}'", c.op));
  }
  for (const auto& [name, indices] : sample)
    if (c.find_output(name) == nullptr)
      throw std::invalid_argument(fmt::format("{}: the sample plan names '{}', which is not an output of the case", c.op, name));

  std::vector<ReferenceOutput> computed = found->second(c, inputs, sample);
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
