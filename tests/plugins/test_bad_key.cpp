// Test plugin whose implementation key does not start with "<backend name>." (it borrows another
// backend's prefix), which the host must refuse.
#include <opcert/sdk/backend.h>

namespace {

class BadKey : public opcert::sdk::Backend {
 public:
  BadKey() { add({"test_good.softmax.borrowed", "softmax", "claims another backend's key", nullptr, [](const auto&) {}}); }
  opcert::sdk::BackendInfo info() const override { return {"test_bad_key", "1.0", "opcert tests", ""}; }
};

}  // namespace

OPCERT_SDK_EXPORT_PLUGIN(BadKey)
