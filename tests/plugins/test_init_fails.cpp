// Test plugin whose initialize fails: the backend's constructor throws "device not present".
#include <opcert/sdk/backend.h>

namespace {

class InitFails : public opcert::sdk::Backend {
 public:
  InitFails() { throw opcert::sdk::Error(OPCERT_ERROR_DEVICE, "device not present"); }
  opcert::sdk::BackendInfo info() const override { return {"test_init_fails", "1.0", "opcert tests", ""}; }
};

}  // namespace

OPCERT_SDK_EXPORT_PLUGIN(InitFails)
