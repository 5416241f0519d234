// A plugin written against the C++ SDK as it was at ABI 1.0, the way a vendor writes one: every SDK
// struct filled by designated initializers (and by position, as docs/ABI.md §9 shows) naming only
// the members that struct had then. Members the SDK added since (Implementation::library_call in
// 1.1, ...) are left out, as a plugin that was never touched leaves them out. tests/abi compiles it
// with -Wall -Wextra -Werror (abi.frozen_1_0_sdk_plugin.*): a member added without a default
// member initializer makes GCC's -Wmissing-field-initializers fail that build. Do not update this
// file to the SDK of the day: its point is that it never changes.
#include <opcert/sdk/backend.h>

#include <cstdint>
#include <string>
#include <vector>

namespace frozen_sdk_1_0 {
namespace {

namespace sdk = opcert::sdk;

sdk::Support query_scale(const sdk::OpCall& call) {
  const auto x = call.find_input("x");
  if (!x || x->dtype() != OPCERT_DTYPE_F32) return sdk::Support::no("x must be fp32");
  return sdk::Support{.supported = true, .reason = ""};
}

void run_scale(const sdk::OpCall& call) {
  const sdk::Tensor x = call.input("x");
  const sdk::Tensor y = call.output("y");
  const float factor = static_cast<float>(call.get_float("factor", 1.0));
  const float* in = x.data<float>();
  float* out = const_cast<float*>(y.data<float>());
  for (int64_t i = 0; i < x.numel(); ++i) out[i] = in[i] * factor;
}

class FrozenSdkBackend : public sdk::Backend {
 public:
  FrozenSdkBackend() {
    add(sdk::Implementation{.key = "frozen_sdk.scale.designated",
                            .op = "scale",
                            .description = "designated initializers of the 1.0 members",
                            .query = query_scale,
                            .run = run_scale});
    add({"frozen_sdk.scale.positional", "scale", "positional initializers of the 1.0 members", query_scale, run_scale});
  }

  sdk::BackendInfo info() const override {
    return {.name = "frozen_sdk", .version = "1.0.0", .vendor = "opcert tests", .description = "an ABI 1.0-era SDK plugin"};
  }

  std::vector<sdk::DeviceInfo> devices() const override {
    return {sdk::DeviceInfo{.device = {OPCERT_DEVICE_CPU, 0}, .name = "host", .memory_bytes = 0, .compute_units = 1}};
  }
};

}  // namespace
}  // namespace frozen_sdk_1_0

OPCERT_SDK_EXPORT_PLUGIN(frozen_sdk_1_0::FrozenSdkBackend)
