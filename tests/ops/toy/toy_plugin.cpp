// The test plugin "toytest": toy_scale on host memory, twice. toytest.toy_scale.exact computes
// alpha · x in fp32 and rounds once (conforms); toytest.toy_scale.biased adds 1/64 of |y| (fails).
#include <opcert/sdk/backend.h>

#include <cmath>
#include <cstring>

namespace {

using opcert::sdk::OpCall;
using opcert::sdk::Support;

float load(int32_t dtype, const void* data, int64_t i) {
  if (dtype == OPCERT_DTYPE_F32) return static_cast<const float*>(data)[i];
  uint32_t bits = static_cast<uint32_t>(static_cast<const uint16_t*>(data)[i]) << 16;
  float v;
  std::memcpy(&v, &bits, sizeof v);
  return v;
}

void store(int32_t dtype, void* data, int64_t i, float v) {
  if (dtype == OPCERT_DTYPE_F32) {
    static_cast<float*>(data)[i] = v;
    return;
  }
  uint32_t bits;
  std::memcpy(&bits, &v, sizeof bits);
  bits += 0x7FFF + ((bits >> 16) & 1);  // round to nearest even (no NaN in these inputs)
  static_cast<uint16_t*>(data)[i] = static_cast<uint16_t>(bits >> 16);
}

Support query(const OpCall& call) {
  const auto x = call.find_input("x");
  const auto y = call.find_output("y");
  if (!x || !y) return Support::no("toy_scale needs input 'x' and output 'y'");
  if (x->dtype() != y->dtype() || (x->dtype() != OPCERT_DTYPE_F32 && x->dtype() != OPCERT_DTYPE_BF16))
    return Support::no("toy_scale: x and y must both be fp32 or both bf16");
  if (x->numel() != y->numel()) return Support::no("toy_scale: x and y must have as many elements");
  return Support::yes();
}

void scale(const OpCall& call, float bias) {
  const auto x = call.input("x");
  const auto y = call.output("y");
  const float alpha = static_cast<float>(call.get_float("alpha", 2.0));
  for (int64_t i = 0; i < x.numel(); ++i) {
    const float v = alpha * load(x.dtype(), x.data(), i);
    store(y.dtype(), y.data(), i, v + bias * std::fabs(v));
  }
}

class ToyTest : public opcert::sdk::Backend {
 public:
  ToyTest() {
    add({"toytest.toy_scale.exact", "toy_scale", "alpha x in fp32, one rounding", query,
         [](const OpCall& c) { scale(c, 0.0f); }});
    add({"toytest.toy_scale.biased", "toy_scale", "alpha x plus |alpha x| / 64: a defect the check must catch", query,
         [](const OpCall& c) { scale(c, 1.0f / 64); }});
  }
  opcert::sdk::BackendInfo info() const override { return {"toytest", "1.0.0", "opcert tests", "implements the toy op"}; }
};

}  // namespace

OPCERT_SDK_EXPORT_PLUGIN(ToyTest)
