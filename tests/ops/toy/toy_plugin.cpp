// The test plugin "toytest": toy_scale on host memory, twice, both reading a call with the toy's
// operand contract (toy_scale_operands.h). toytest.toy_scale.exact computes alpha · x in fp32 and
// rounds once (conforms); toytest.toy_scale.biased adds 1/64 of |y| (fails).
#include <opcert/sdk/backend.h>
#include <opcert/sdk/checked_implementation.h>
#include <opcert/sdk/number_codecs.h>

#include <cmath>

#include "toy_scale_operands.h"

namespace {

namespace sdk = opcert::sdk;

void scale(const sdk::ToyScaleOperands& s, float bias) {
  for (int64_t i = 0; i < s.x->numel(); ++i) {
    const float v = s.alpha * sdk::load_as_f32(s.x->dtype(), s.x->data(), i);
    sdk::store_f32_as(s.y->dtype(), s.y->data(), i, v + bias * std::fabs(v));
  }
}

constexpr const char* kOp = sdk::toy_scale_names::kOp;

class ToyTest : public sdk::Backend {
 public:
  ToyTest() {
    add(sdk::checked_implementation({"toytest.toy_scale.exact", kOp, "alpha x in fp32, one rounding"},
                                    sdk::parse_toy_scale, [](const sdk::ToyScaleOperands& s) { scale(s, 0.0f); }));
    add(sdk::checked_implementation(
        {"toytest.toy_scale.biased", kOp, "alpha x plus |alpha x| / 64: a defect the check must catch"},
        sdk::parse_toy_scale, [](const sdk::ToyScaleOperands& s) { scale(s, 1.0f / 64); }));
  }
  sdk::BackendInfo info() const override { return {"toytest", "1.0.0", "opcert tests", "implements the toy op"}; }
};

}  // namespace

OPCERT_SDK_EXPORT_PLUGIN(ToyTest)
