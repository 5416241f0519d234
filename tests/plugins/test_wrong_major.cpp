// Test plugin whose table is valid in every respect except its ABI major version, which is one
// ahead of the host's: the host must refuse it, naming both versions, without calling into it.
#include <opcert/sdk/backend.h>

namespace {

class WrongMajor : public opcert::sdk::Backend {
 public:
  opcert::sdk::BackendInfo info() const override { return {"test_wrong_major", "1.0", "opcert tests", ""}; }
};

}  // namespace

extern "C" OPCERT_EXPORT const opcert_api* opcert_backend_get_api(void) {
  static const opcert_api table = [] {
    opcert_api t = *opcert::sdk::make_api<WrongMajor>();
    t.abi_major = OPCERT_ABI_VERSION_MAJOR + 1;
    t.abi_minor = 0;
    return t;
  }();
  return &table;
}
