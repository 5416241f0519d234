// Test plugin "test_good" (version 1.2.3): one real implementation, an fp32 softmax over the last
// dimension of input "x" into output "y". Built twice: as test_good, and with TEST_GOOD_TWIN as a
// second library that claims the same backend name.
#include <opcert/sdk/backend.h>

#include "fp32_softmax.h"

namespace {

using opcert::sdk::OpCall;
using opcert::sdk::Support;

Support query_softmax(const OpCall& call) { return opcert::test_plugin::query_fp32_softmax(call, "test_good"); }

class TestGood : public opcert::sdk::Backend {
 public:
  TestGood() {
    add({"test_good.softmax.reference", "softmax", "fp32 softmax, last dim", query_softmax,
         opcert::test_plugin::run_fp32_softmax});
  }

  opcert::sdk::BackendInfo info() const override {
#ifdef TEST_GOOD_TWIN
    return {"test_good", "9.9.9", "opcert tests", "a second library claiming the name test_good"};
#else
    return {"test_good", "1.2.3", "opcert tests", "a well-behaved plugin"};
#endif
  }
};

}  // namespace

OPCERT_SDK_EXPORT_PLUGIN(TestGood)
