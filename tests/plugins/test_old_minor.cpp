// Test plugin simulating an older minor version: its table reports a struct_size that ends at
// run_op (the last required 1.0 entry). The entries past that size hold a function that aborts
// the process, so a host that ever calls past struct_size cannot pass a test using this plugin.
#include <opcert/sdk/backend.h>

#include <algorithm>
#include <cstdlib>

namespace {

class OldMinor : public opcert::sdk::Backend {
 public:
  OldMinor() {
    add({"test_old_minor.copy.reference", "copy", "copies fp32 'x' into 'y'", nullptr, [](const opcert::sdk::OpCall& c) {
           const auto x = c.input("x");
           std::copy_n(x.data<const float>(), x.numel(), c.output("y").data<float>());
         }});
  }
  opcert::sdk::BackendInfo info() const override { return {"test_old_minor", "0.9", "opcert tests", ""}; }
};

template <class Args>
opcert_error* past_struct_size(Args*) {
  std::abort();
}

}  // namespace

extern "C" OPCERT_EXPORT const opcert_api* opcert_backend_get_api(void) {
  static const opcert_api table = [] {
    opcert_api t = *opcert::sdk::make_api<OldMinor>();
    t.struct_size = OPCERT_STRUCT_SIZE(opcert_api, run_op);
    t.event_create = past_struct_size;
    t.event_destroy = past_struct_size;
    t.event_record = past_struct_size;
    t.event_elapsed = past_struct_size;
    t.comm_unique_id = past_struct_size;
    t.comm_init = past_struct_size;
    t.comm_destroy = past_struct_size;
    t.comm_abort = past_struct_size;
    return t;
  }();
  return &table;
}
