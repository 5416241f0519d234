// cpu.toy_scale.loop: the toy op's CPU implementation, in the toy's folder and registered with the
// CPU backend from here (backends/cpu/cpu_implementations.h): an implementation of a new op edits
// no file of the backend. y = alpha · x computed in fp32 and rounded once.
#include <opcert/sdk/checked_implementation.h>
#include <opcert/sdk/number_codecs.h>

#include <vector>

#include "cpu/cpu_implementations.h"
#include "toy_scale_operands.h"

namespace opcert::cpu {
namespace {

void compute(const sdk::ToyScaleOperands& s) {
  for (int64_t i = 0; i < s.x->numel(); ++i)
    sdk::store_f32_as(s.y->dtype(), s.y->data(), i, s.alpha * sdk::load_as_f32(s.x->dtype(), s.x->data(), i));
}

std::vector<sdk::Implementation> toy_scale_implementations() {
  return {sdk::checked_implementation({"cpu.toy_scale.loop", sdk::toy_scale_names::kOp, "alpha x in fp32, one rounding"},
                                      sdk::parse_toy_scale, compute)};
}

}  // namespace

OPCERT_REGISTER_IMPLEMENTATIONS(CpuImplementations, sdk::toy_scale_names::kOp, toy_scale_implementations)

}  // namespace opcert::cpu
