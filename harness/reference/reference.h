// The golden reference: every op of docs/OPS.md computed in fp64 with LibTorch, from exactly the
// values the backend received (inputs decoded from their storage dtype, fp8 included).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "model/case.h"
#include "model/host_tensor.h"
#include "opkit/reference_output.h"

namespace opcert {

/// Golden outputs for `c`. `inputs` hold the exact bytes the backend received, in the order of
/// c.inputs. Throws std::invalid_argument for a case the contract does not define.
///
/// One ReferenceOutput per output operand, in the order of c.outputs. Computed on the CPU in
/// fp64 with LibTorch by the op's registered reference (harness/ops/<op>/<op>_reference.cpp;
/// collectives have none: each rank checks its own output exactly).
/// Values are exact results before rounding into the output dtype, except where the contract
/// itself rounds an intermediate; each op's reference file says which, and what magnitude and
/// condition it gives per element (docs/TOLERANCES.md uses them).
/// With a SamplePlan entry for an output, only those (sorted, in-range) indices are computed and
/// ReferenceOutput::indices repeats them; a plan naming a non-output is an invalid_argument.
/// Built without LibTorch, it throws std::runtime_error saying so.
std::vector<ReferenceOutput> compute_reference(const Case& c, std::span<const HostTensor> inputs,
                                               const SamplePlan& sample = {});

/// Whether this build computes golden references (it was built with LibTorch).
bool reference_available();

/// What computes the references, for golden sets' manifests: "LibTorch 2.x, fp64 on the CPU";
/// "" without LibTorch.
std::string reference_library();

/// One op's golden reference: the outputs the case lists, in any order (compute_reference orders
/// them and checks the sample plan first). Throws std::invalid_argument for a case the contract
/// does not define.
using OpReference = std::vector<ReferenceOutput> (*)(const Case&, std::span<const HostTensor>, const SamplePlan&);

/// Adds `op`'s reference (at static initialisation, through OPCERT_REGISTER_REFERENCE in the op's
/// folder); a second one for the same op stops the program with a message naming it.
void register_reference(std::string_view op, OpReference reference);

namespace detail {
struct ReferenceRegistration {
  ReferenceRegistration(std::string_view op, OpReference reference) { register_reference(op, reference); }
};
}  // namespace detail

}  // namespace opcert

/// Registers `fn` as the golden reference of the op named `op` when the program starts.
#define OPCERT_REGISTER_REFERENCE(op, fn)                                                                     \
  namespace {                                                                                                 \
  const ::opcert::detail::ReferenceRegistration OPCERT_REGISTER_REFERENCE_NAME(__LINE__){op, fn}; \
  }
#define OPCERT_REGISTER_REFERENCE_NAME2(line) opcert_reference_registration_##line
#define OPCERT_REGISTER_REFERENCE_NAME(line) OPCERT_REGISTER_REFERENCE_NAME2(line)
