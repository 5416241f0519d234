// Test plugin "deferred": an fp32 softmax computed into memory of its own, as a library that
// returns fresh tensors does, and moved into the call's output by publish_outputs (ABI 1.1).
// Implementation "deferred.softmax.pending" names its library call. With a host older than 1.1 it
// writes the output in run_op. A host that read the outputs without publishing would see the
// NaNs run_op plants there, and the check would fail.
// With OPCERT_TEST_DEFERRED_FALLBACK=1 its first choice is refused at run time, as a library may
// refuse a call it listed: it falls back, and from then on names the fallback as its library call.
#include <opcert/sdk/backend.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <map>
#include <vector>

#include "fp32_softmax.h"

namespace {

using opcert::sdk::OpCall;
using opcert::sdk::Support;

class Deferred : public opcert::sdk::Backend, public opcert::sdk::OutputPublisher {
 public:
  static constexpr bool kPublishesOutputs = true;

  Deferred() {
    opcert::sdk::Implementation impl{"deferred.softmax.pending", "softmax", "fp32 softmax published after timing",
                                     [](const OpCall& call) { return opcert::test_plugin::query_fp32_softmax(call, "deferred"); },
                                     [this](const OpCall& call) { run(call); }};
    impl.library_call = [this](const OpCall&) {
      return std::string(fell_back_ ? "host_softmax(x), deferred_softmax having refused it"
                                    : "deferred_softmax(x) into a buffer of its own");
    };
    add(std::move(impl));
  }

  opcert::sdk::BackendInfo info() const override {
    return {"deferred", "1.0", "opcert tests", "a plugin whose results are published after timing"};
  }

  uint64_t publish_outputs(const OpCall& call) override {
    const opcert::sdk::Tensor y = call.output("y");
    const auto it = pending_.find(y.data());
    if (it == pending_.end()) return 0;
    const uint64_t bytes = it->second.size() * sizeof(float);
    std::memcpy(y.data(), it->second.data(), bytes);
    pending_.erase(it);
    return bytes;
  }

 private:
  void run(const OpCall& call) {
    if (const char* v = std::getenv("OPCERT_TEST_DEFERRED_FALLBACK"); v != nullptr && std::strcmp(v, "1") == 0)
      fell_back_ = true;
    opcert::test_plugin::run_fp32_softmax(call);
    if (host_abi_minor() < 1) return;
    // Keep the result, and leave NaN in the output until it is published.
    const opcert::sdk::Tensor y = call.output("y");
    float* out = y.data<float>();
    pending_[y.data()].assign(out, out + y.numel());
    std::fill(out, out + y.numel(), std::numeric_limits<float>::quiet_NaN());
  }

  std::map<const void*, std::vector<float>> pending_;  // by the output's data pointer
  bool fell_back_ = false;
};

}  // namespace

OPCERT_SDK_EXPORT_PLUGIN(Deferred)
